package io.couponevent.common.security;

import java.util.ArrayList;
import java.util.List;

import javax.crypto.spec.SecretKeySpec;

import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.core.OAuth2ErrorCodes;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidatorResult;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtAudienceValidator;
import org.springframework.security.oauth2.jwt.JwtIssuerValidator;
import org.springframework.security.oauth2.jwt.JwtTimestampValidator;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationConverter;
import org.springframework.security.oauth2.server.resource.authentication.JwtGrantedAuthoritiesConverter;

/**
 * The token shape the three services accept: the user is the JWT {@code sub}, and the
 * {@code roles} claim grants {@code ROLE_<role>} (admins carry {@code "admin"}).
 */
public final class CouponTokens {

	private CouponTokens() {
	}

	/**
	 * A decoder for the configured key source, with Spring Security's default validators
	 * (but {@code exp} required: the default allows a token without one, valid forever),
	 * the configured issuer and audience, and the user id rule ({@link #subjectProblem}).
	 * {@link Hs256FastPath} makes the same checks for the common token: a validator added
	 * here must be mirrored there.
	 */
	public static NimbusJwtDecoder decoder(JwtProperties properties) {
		NimbusJwtDecoder decoder = properties.hasSecret()
				? NimbusJwtDecoder.withSecretKey(hs256Key(properties)).macAlgorithm(MacAlgorithm.HS256).build()
				: NimbusJwtDecoder.withJwkSetUri(properties.jwkSetUri().toString()).build();
		decoder.setJwtValidator(JwtValidators.createDefaultWithValidators(validators(properties)));
		return decoder;
	}

	private static List<OAuth2TokenValidator<Jwt>> validators(JwtProperties properties) {
		JwtTimestampValidator timestamps = new JwtTimestampValidator(Hs256FastPath.CLOCK_SKEW);
		timestamps.setAllowEmptyExpiryClaim(false);
		List<OAuth2TokenValidator<Jwt>> validators = new ArrayList<>();
		validators.add(timestamps);
		if (properties.issuer() != null) {
			validators.add(new JwtIssuerValidator(properties.issuer()));
		}
		if (properties.audience() != null) {
			validators.add(new JwtAudienceValidator(properties.audience()));
		}
		validators.add((jwt) -> {
			String problem = subjectProblem(jwt.getSubject());
			return (problem != null)
					? OAuth2TokenValidatorResult.failure(new OAuth2Error(OAuth2ErrorCodes.INVALID_TOKEN, problem, null))
					: OAuth2TokenValidatorResult.success();
		});
		return validators;
	}

	private static SecretKeySpec hs256Key(JwtProperties properties) {
		return new HmacSha256(properties.secret()).key();
	}

	/**
	 * Why a {@code sub} cannot be a user id, or {@code null} when it can: 1–64
	 * characters, like {@code issued_coupons.user_id}, no control characters (Redis uses
	 * one to mark held slots) and no surrounding whitespace.
	 */
	public static String subjectProblem(String sub) {
		if (sub == null || sub.isBlank() || sub.length() > 64) {
			return "sub must be 1-64 characters";
		}
		for (int i = 0; i < sub.length(); i++) {
			if (Character.isISOControl(sub.charAt(i))) {
				return "sub must not contain control characters";
			}
		}
		// MySQL's and MariaDB's utf8mb4_bin pads with spaces when comparing: "x" and "x "
		// would be two users in Redis but one in the unique key, a lost acceptance.
		if (!sub.strip().equals(sub)) {
			return "sub must not start or end with whitespace";
		}
		return null;
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
