package io.couponevent.api.security;

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
import org.springframework.security.oauth2.jwt.JwtDecoder;
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

	/**
	 * Spring Security's default validators and the user id rule; the issuance endpoint's
	 * {@code Hs256FastPath} makes the same checks for the common token.
	 */
	@Bean
	JwtDecoder jwtDecoder(JwtProperties properties) {
		return CouponTokens.decoder(properties);
	}

}
