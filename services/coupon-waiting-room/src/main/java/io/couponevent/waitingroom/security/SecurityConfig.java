package io.couponevent.waitingroom.security;

import io.couponevent.common.entry.EntryProperties;
import io.couponevent.common.security.CouponTokens;
import io.couponevent.common.security.JwtProperties;
import io.couponevent.common.security.ProblemSecurityHandlers;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.core.OAuth2TokenValidatorResult;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The same tokens as the API: the user is the JWT {@code sub}, admins carry
 * {@code "admin"} in {@code roles}. Actuator endpoints (management port) are open.
 */
@Configuration
@EnableConfigurationProperties({ JwtProperties.class, EntryProperties.class })
class SecurityConfig {

	@Bean
	@Order(1)
	SecurityFilterChain management(HttpSecurity http) throws Exception {
		http.securityMatcher(EndpointRequest.toAnyEndpoint())
			.csrf((csrf) -> csrf.disable())
			.sessionManagement((s) -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
			.authorizeHttpRequests((auth) -> auth.anyRequest().permitAll());
		return http.build();
	}

	@Bean
	@Order(2)
	SecurityFilterChain api(HttpSecurity http, JsonMapper json) throws Exception {
		ProblemSecurityHandlers handlers = new ProblemSecurityHandlers(json);
		http.csrf((csrf) -> csrf.disable())
			.sessionManagement((s) -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
			.requestCache((c) -> c.disable())
			.authorizeHttpRequests((auth) -> auth.requestMatchers("/api/v1/admin/**")
				.hasRole("admin")
				.requestMatchers("/api/v1/waiting-room/**")
				.authenticated()
				.requestMatchers("/error")
				.permitAll()
				.anyRequest()
				.denyAll())
			.oauth2ResourceServer((o) -> o.jwt((jwt) -> jwt.jwtAuthenticationConverter(CouponTokens.rolesConverter()))
				.authenticationEntryPoint(handlers)
				.accessDeniedHandler(handlers))
			.exceptionHandling((e) -> e.authenticationEntryPoint(handlers).accessDeniedHandler(handlers));
		return http.build();
	}

	@Bean
	JwtDecoder jwtDecoder(JwtProperties properties) {
		NimbusJwtDecoder decoder = CouponTokens.decoder(properties);
		decoder.setJwtValidator(
				new DelegatingOAuth2TokenValidator<>(JwtValidators.createDefault(), SecurityConfig::validSubject));
		return decoder;
	}

	/** The user id is the subject: 1-64 characters, no control characters. */
	private static OAuth2TokenValidatorResult validSubject(Jwt jwt) {
		String sub = jwt.getSubject();
		if (sub == null || sub.isBlank() || sub.length() > 64 || sub.chars().anyMatch(Character::isISOControl)) {
			return OAuth2TokenValidatorResult.failure(
					new OAuth2Error("invalid_token", "sub must be 1-64 characters without control characters", null));
		}
		return OAuth2TokenValidatorResult.success();
	}

}
