package io.couponevent.api.web;

import io.couponevent.api.config.HttpProperties;
import io.couponevent.api.config.IssuanceProperties;
import io.micrometer.core.instrument.MeterRegistry;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The public API's filters, before Spring Security so that a request turned away costs no
 * token verification: {@link RequestShapeFilter} on all of {@code /api/}, then
 * {@link IssuanceAdmissionFilter} on the coupon API.
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

	@Bean
	FilterRegistrationBean<RequestShapeFilter> requestShapeFilter(HttpProperties http, JsonMapper json) {
		FilterRegistrationBean<RequestShapeFilter> registration = new FilterRegistrationBean<>(
				new RequestShapeFilter(http.maxBodySize().toBytes(), json));
		registration.addUrlPatterns("/api/*");
		registration.setOrder(SecurityFilterProperties.DEFAULT_FILTER_ORDER - 2);
		return registration;
	}

}
