package io.couponevent.api.web;

import io.couponevent.api.config.IssuanceProperties;
import io.micrometer.core.instrument.MeterRegistry;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Registers {@link IssuanceAdmissionFilter} on the public coupon API, just before Spring
 * Security.
 */
@Configuration(proxyBeanMethods = false)
class AdmissionConfig {

	@Bean
	FilterRegistrationBean<IssuanceAdmissionFilter> issuanceAdmissionFilter(IssuanceProperties issuance,
			JsonMapper json, MeterRegistry registry) {
		FilterRegistrationBean<IssuanceAdmissionFilter> registration = new FilterRegistrationBean<>(
				new IssuanceAdmissionFilter(issuance, json, registry));
		registration.addUrlPatterns("/api/v1/coupons/*");
		registration.setOrder(SecurityFilterProperties.DEFAULT_FILTER_ORDER - 1);
		return registration;
	}

}
