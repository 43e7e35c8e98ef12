package io.couponevent.common.security;

import java.net.URI;
import java.nio.charset.StandardCharsets;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code coupon.security.jwt.*}: how the services verify tokens. Exactly one of an HS256
 * {@code secret} (at least 32 bytes) or a {@code jwk-set-uri}.
 *
 * <p>
 * Exactly one, not "at least one": with both set, a service would silently verify against
 * the secret and ignore the identity provider's keys. Enable with
 * {@code @EnableConfigurationProperties(JwtProperties.class)} where requests are served.
 *
 * @param secret HS256 key ({@code COUPON_SECURITY_JWT_SECRET}); blank counts as unset
 * @param jwkSetUri JWK set of an identity provider
 * ({@code COUPON_SECURITY_JWT_JWK_SET_URI})
 * @param issuer when set, a token's {@code iss} must be exactly this
 * ({@code COUPON_SECURITY_JWT_ISSUER}); blank counts as unset
 * @param audience when set, a token's {@code aud} must contain this
 * ({@code COUPON_SECURITY_JWT_AUDIENCE}); blank counts as unset
 */
@ConfigurationProperties("coupon.security.jwt")
public record JwtProperties(String secret, URI jwkSetUri, String issuer, String audience) {

	/** HS256 needs a key at least as long as its 256-bit output. */
	public static final int MIN_SECRET_BYTES = 32;

	public JwtProperties {
		boolean hasSecret = secret != null && !secret.isBlank();
		if (hasSecret == (jwkSetUri != null)) {
			throw new IllegalArgumentException("Set exactly one of coupon.security.jwt.secret "
					+ "(COUPON_SECURITY_JWT_SECRET) or coupon.security.jwt.jwk-set-uri (COUPON_SECURITY_JWT_JWK_SET_URI)");
		}
		if (hasSecret && secret.getBytes(StandardCharsets.UTF_8).length < MIN_SECRET_BYTES) {
			throw new IllegalArgumentException(
					"coupon.security.jwt.secret must be at least " + MIN_SECRET_BYTES + " bytes for HS256");
		}
		if (!hasSecret) {
			secret = null;
		}
		issuer = (issuer == null || issuer.isBlank()) ? null : issuer;
		audience = (audience == null || audience.isBlank()) ? null : audience;
	}

	public boolean hasSecret() {
		return secret != null;
	}

}
