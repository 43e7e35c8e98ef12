package io.couponevent.consumer.config;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code coupon.security.jwt.*}: how admin tokens are verified, shared with coupon-api. Exactly one
 * of an HS256 {@code secret} (at least 32 bytes) or a {@code jwk-set-uri}.
 */
@ConfigurationProperties("coupon.security.jwt")
public record JwtProperties(String secret, URI jwkSetUri) {

    private static final int MIN_SECRET_BYTES = 32;

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
    }
}
