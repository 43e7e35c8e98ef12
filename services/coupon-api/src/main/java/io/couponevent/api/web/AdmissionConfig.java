package io.couponevent.api.web;

import io.couponevent.api.config.HttpProperties;
import io.couponevent.api.config.IssuanceProperties;
import io.couponevent.api.issuance.IssuanceService;
import io.couponevent.common.security.JwtProperties;
import io.couponevent.common.web.LeanEndpoints;
import io.micrometer.core.instrument.MeterRegistry;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.oauth2.jwt.JwtDecoder;

/**
 * The public API's filters, in this order and all before Spring Security, so that a
 * request turned away costs no token verification: {@link RequestShapeFilter} on all of
 * {@code /api/}, then {@link IssuanceAdmissionFilter} and {@link IssuanceEndpoint} on the
 * coupon API.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication
class AdmissionConfig {

	@Bean
	FilterRegistrationBean<RequestShapeFilter> requestShapeFilter(HttpProperties http, JsonMapper json) {
		FilterRegistrationBean<RequestShapeFilter> registration = new FilterRegistrationBean<>(
				new RequestShapeFilter(http.maxBodySize().toBytes(), json));
		registration.addUrlPatterns("/api/*");
		registration.setOrder(SecurityFilterProperties.DEFAULT_FILTER_ORDER - 3);
		return registration;
	}

	@Bean
	FilterRegistrationBean<IssuanceAdmissionFilter> issuanceAdmissionFilter(IssuanceProperties issuance,
			JsonMapper json, MeterRegistry registry) {
		FilterRegistrationBean<IssuanceAdmissionFilter> registration = new FilterRegistrationBean<>(
				new IssuanceAdmissionFilter(issuance, json, registry));
		registration.addUrlPatterns("/api/v1/coupons/*");
		registration.setOrder(SecurityFilterProperties.DEFAULT_FILTER_ORDER - 2);
		return registration;
	}

	@Bean
	FilterRegistrationBean<IssuanceEndpoint> issuanceEndpoint(IssuanceService issuance, JwtDecoder jwts,
			JwtProperties jwtProperties, ApiExceptionHandler problems, JsonMapper json) {
		FilterRegistrationBean<IssuanceEndpoint> registration = new FilterRegistrationBean<>(
				new IssuanceEndpoint(issuance, LeanEndpoints.of(jwts, jwtProperties, json), problems, json));
		registration.addUrlPatterns("/api/v1/coupons/*");
		registration.setOrder(SecurityFilterProperties.DEFAULT_FILTER_ORDER - 1);
		return registration;
	}

}
