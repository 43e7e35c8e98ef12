package io.couponevent.common.security;

import java.nio.charset.StandardCharsets;

import javax.crypto.spec.SecretKeySpec;

import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationConverter;
import org.springframework.security.oauth2.server.resource.authentication.JwtGrantedAuthoritiesConverter;

/**
 * The token shape both services accept: the user is the JWT {@code sub}, and the
 * {@code roles} claim grants {@code ROLE_<role>} (admins carry {@code "admin"}).
 */
public final class CouponTokens {

	private CouponTokens() {
	}

	/**
	 * A decoder for the configured key source, with Spring Security's default validators.
	 */
	public static NimbusJwtDecoder decoder(JwtProperties properties) {
		if (properties.hasSecret()) {
			SecretKeySpec key = new SecretKeySpec(properties.secret().getBytes(StandardCharsets.UTF_8), "HmacSHA256");
			return NimbusJwtDecoder.withSecretKey(key).macAlgorithm(MacAlgorithm.HS256).build();
		}
		return NimbusJwtDecoder.withJwkSetUri(properties.jwkSetUri().toString()).build();
	}

	/**
	 * Authorities from the {@code roles} claim, so {@code hasRole("admin")} matches an
	 * admin token.
	 */
	public static JwtAuthenticationConverter rolesConverter() {
		JwtGrantedAuthoritiesConverter roles = new JwtGrantedAuthoritiesConverter();
		roles.setAuthoritiesClaimName("roles");
		roles.setAuthorityPrefix("ROLE_");
		JwtAuthenticationConverter converter = new JwtAuthenticationConverter();
		converter.setJwtGrantedAuthoritiesConverter(roles);
		return converter;
	}

}
