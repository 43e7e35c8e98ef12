package io.couponevent.api.security;

import java.util.ArrayList;
import java.util.List;

import io.couponevent.common.security.CouponTokens;
import io.couponevent.common.security.JwtProperties;
import io.couponevent.common.security.ProblemSecurityHandlers;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.actuate.endpoint.web.WebServerNamespace;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidatorResult;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.util.matcher.OrRequestMatcher;

/**
 * Stateless resource server: the user is the JWT {@code sub}, admins carry
 * {@code "admin"} in the {@code roles} claim. Every security refusal is problem+json,
 * like the rest of the API. Only where requests are served: the hook jobs
 * ({@code coupon.job}) run without a web server and need no key.
 */
@Configuration
@ConditionalOnWebApplication
@EnableConfigurationProperties(JwtProperties.class)
class SecurityConfig {

	/**
	 * Actuator endpoints (health probes, Prometheus scrape) are open: they listen on the
	 * separate management port, which the chart exposes only to the kubelet and
	 * Prometheus (NetworkPolicy), and their only ways to change state are not exposed.
	 * The probe groups' additional paths on the main port ({@code /livez},
	 * {@code /readyz}, with
	 * {@code management.endpoint.health.probes.add-additional-paths}) are open too: a
	 * readiness probe there fails when the main connector is saturated, which one on the
	 * management port cannot see.
	 */
	@Bean
	@Order(1)
	SecurityFilterChain management(HttpSecurity http) throws Exception {
		http.securityMatcher(new OrRequestMatcher(EndpointRequest.toAnyEndpoint(),
				EndpointRequest.toAdditionalPaths(WebServerNamespace.SERVER, HealthEndpoint.class)))
			.csrf(csrf -> csrf.disable())
			.sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
			.authorizeHttpRequests(auth -> auth.anyRequest().permitAll());
		return http.build();
	}

	@Bean
	@Order(2)
	SecurityFilterChain api(HttpSecurity http, JsonMapper json) throws Exception {
		ProblemSecurityHandlers handlers = new ProblemSecurityHandlers(json);
		http.csrf(csrf -> csrf.disable())
			.sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
			.requestCache(c -> c.disable())
			.authorizeHttpRequests(auth -> auth.requestMatchers("/api/v1/admin/**")
				.hasRole("admin")
				.requestMatchers(HttpMethod.GET, "/api/v1/coupons/*")
				.permitAll()
				.requestMatchers("/api/v1/**")
				.authenticated()
				.requestMatchers("/error")
				.permitAll()
				.anyRequest()
				.denyAll())
			.oauth2ResourceServer(o -> o.jwt(jwt -> jwt.jwtAuthenticationConverter(CouponTokens.rolesConverter()))
				.authenticationEntryPoint(handlers)
				.accessDeniedHandler(handlers))
			.exceptionHandling(e -> e.authenticationEntryPoint(handlers).accessDeniedHandler(handlers));
		return http.build();
	}

	@Bean
	JwtDecoder jwtDecoder(JwtProperties properties) {
		NimbusJwtDecoder decoder = CouponTokens.decoder(properties);
		List<OAuth2TokenValidator<Jwt>> validators = new ArrayList<>();
		validators.add(JwtValidators.createDefault());
		validators.add(SecurityConfig::validSubject);
		decoder.setJwtValidator(new DelegatingOAuth2TokenValidator<>(validators));
		return decoder;
	}

	/**
	 * The user id is the subject: 1–64 characters, like {@code issued_coupons.user_id},
	 * no control characters (Redis uses one to mark held slots, see
	 * {@code Reservation.HELD_PREFIX}) and no surrounding whitespace.
	 */
	private static OAuth2TokenValidatorResult validSubject(Jwt jwt) {
		String sub = jwt.getSubject();
		if (sub == null || sub.isBlank() || sub.length() > 64) {
			return OAuth2TokenValidatorResult
				.failure(new OAuth2Error("invalid_token", "sub must be 1-64 characters", null));
		}
		if (sub.chars().anyMatch(Character::isISOControl)) {
			return OAuth2TokenValidatorResult
				.failure(new OAuth2Error("invalid_token", "sub must not contain control characters", null));
		}
		// MySQL's and MariaDB's utf8mb4_bin pads with spaces when comparing: "x" and "x "
		// would be two users in Redis but one in the unique key, a lost acceptance.
		if (!sub.strip().equals(sub)) {
			return OAuth2TokenValidatorResult
				.failure(new OAuth2Error("invalid_token", "sub must not start or end with whitespace", null));
		}
		return OAuth2TokenValidatorResult.success();
	}

}
