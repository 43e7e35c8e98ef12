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
import org.springframework.http.HttpMethod;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The same tokens as the API: the user is the JWT {@code sub}, admins carry
 * {@code "admin"} in {@code roles}. Actuator endpoints (management port), the probes on
 * the main port and the waiting-room page's files are open.
 */
@Configuration
@EnableConfigurationProperties({ JwtProperties.class, EntryProperties.class })
class SecurityConfig {

	/** The waiting-room page's files (static/, and the mounted page directory). */
	static final String[] PAGE = { "/", "/index.html", "/config.json", "/page/**", "/favicon.ico" };

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
				.requestMatchers("/error", "/livez", "/readyz")
				.permitAll()
				.requestMatchers(HttpMethod.GET, PAGE)
				.permitAll()
				.requestMatchers(HttpMethod.HEAD, PAGE)
				.permitAll()
				.anyRequest()
				.denyAll())
			.oauth2ResourceServer((o) -> o.jwt((jwt) -> jwt.jwtAuthenticationConverter(CouponTokens.rolesConverter()))
				.authenticationEntryPoint(handlers)
				.accessDeniedHandler(handlers))
			.exceptionHandling((e) -> e.authenticationEntryPoint(handlers).accessDeniedHandler(handlers));
		return http.build();
	}

	/**
	 * The common decoder: Spring Security's default validators and the user id rule, as
	 * the API's (and as {@code Hs256FastPath} checks them on the join and poll path).
	 */
	@Bean
	JwtDecoder jwtDecoder(JwtProperties properties) {
		return CouponTokens.decoder(properties);
	}

}
