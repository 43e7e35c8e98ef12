package io.couponevent.waitingroom.web;

import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link RequestShapeFilter} on all of {@code /api/}, ahead of join, poll and security.
 */
@Configuration(proxyBeanMethods = false)
class RequestShapeConfig {

	@Bean
	FilterRegistrationBean<RequestShapeFilter> requestShapeFilter(JsonMapper json) {
		FilterRegistrationBean<RequestShapeFilter> registration = new FilterRegistrationBean<>(
				new RequestShapeFilter(json));
		registration.addUrlPatterns("/api/*");
		registration.setOrder(SecurityFilterProperties.DEFAULT_FILTER_ORDER - 2);
		return registration;
	}

}
