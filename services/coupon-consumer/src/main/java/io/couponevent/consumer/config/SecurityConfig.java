package io.couponevent.consumer.config;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

import io.couponevent.common.security.CouponTokens;
import io.couponevent.common.security.JwtProperties;
import jakarta.servlet.http.HttpServletResponse;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.web.SecurityFilterChain;

/**
 * JWT resource server: admin endpoints need the claim {@code roles} to contain
 * {@code admin}; the actuator (on the management port) is open for probes and scraping.
 * 401/403 answer with problem details like coupon-api.
 */
@Configuration(proxyBeanMethods = false)
public class SecurityConfig {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	@Bean
	SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
		return http.csrf(csrf -> csrf.disable())
			.sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
			.authorizeHttpRequests(auth -> auth.requestMatchers("/api/v1/admin/**")
				.hasRole("admin")
				.requestMatchers("/actuator/**", "/error")
				.permitAll()
				.anyRequest()
				.denyAll())
			.oauth2ResourceServer(rs -> rs.jwt(jwt -> jwt.jwtAuthenticationConverter(CouponTokens.rolesConverter()))
				.authenticationEntryPoint((request, response, e) -> write(response, HttpStatus.UNAUTHORIZED,
						"UNAUTHENTICATED", "A valid bearer token is required"))
				.accessDeniedHandler((request, response, e) -> write(response, HttpStatus.FORBIDDEN, "FORBIDDEN",
						"The admin role is required")))
			.exceptionHandling(ex -> ex
				.authenticationEntryPoint((request, response, e) -> write(response, HttpStatus.UNAUTHORIZED,
						"UNAUTHENTICATED", "A valid bearer token is required"))
				.accessDeniedHandler((request, response, e) -> write(response, HttpStatus.FORBIDDEN, "FORBIDDEN",
						"The admin role is required")))
			.build();
	}

	@Bean
	JwtDecoder jwtDecoder(JwtProperties props) {
		return CouponTokens.decoder(props);
	}

	private static void write(HttpServletResponse response, HttpStatus status, String code, String detail)
			throws IOException {
		// Written by hand: no MVC message converter runs inside the security filter
		// chain.
		Map<String, Object> problem = new LinkedHashMap<>();
		problem.put("type", "about:blank");
		problem.put("title", status.getReasonPhrase());
		problem.put("status", status.value());
		problem.put("detail", detail);
		problem.put("code", code);
		response.setStatus(status.value());
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		if (status == HttpStatus.UNAUTHORIZED) {
			response.setHeader("WWW-Authenticate", "Bearer");
		}
		JSON.writeValue(response.getOutputStream(), problem);
	}

}
