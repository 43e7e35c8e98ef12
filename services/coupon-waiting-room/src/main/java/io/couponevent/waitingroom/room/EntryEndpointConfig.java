package io.couponevent.waitingroom.room;

import io.couponevent.common.security.JwtProperties;
import io.couponevent.common.web.LeanEndpoints;
import io.couponevent.waitingroom.web.ApiExceptionHandler;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.oauth2.jwt.JwtDecoder;

/**
 * Join and poll answered ahead of Spring Security's filter chain (which checks the token
 * itself), behind the request-metrics filter.
 */
@Configuration(proxyBeanMethods = false)
class EntryEndpointConfig {

	@Bean
	FilterRegistrationBean<EntryEndpoint> entryEndpoint(WaitingRoom room, JwtDecoder jwts, JwtProperties jwtProperties,
			ApiExceptionHandler problems, JsonMapper json) {
		FilterRegistrationBean<EntryEndpoint> registration = new FilterRegistrationBean<>(
				new EntryEndpoint(room, LeanEndpoints.of(jwts, jwtProperties, json), problems, json));
		registration.addUrlPatterns("/api/v1/waiting-room/coupons/*");
		registration.setOrder(SecurityFilterProperties.DEFAULT_FILTER_ORDER - 1);
		return registration;
	}

}
