package io.couponevent.api.config;

import java.net.URI;
import java.nio.charset.StandardCharsets;

import jakarta.validation.constraints.AssertTrue;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.annotation.Validated;

/** How user tokens are verified: an HS256 shared secret or a JWK set URI (exactly one is needed). */
@Validated
@ConfigurationProperties("coupon.security.jwt")
public record JwtProperties(String secret, URI jwkSetUri) {

    @AssertTrue(message = "set coupon.security.jwt.secret (HS256, at least 32 bytes) or coupon.security.jwt.jwk-set-uri")
    public boolean isKeySourceConfigured() {
        return hasSecret() || jwkSetUri != null;
    }

    @AssertTrue(message = "coupon.security.jwt.secret must be at least 32 bytes (HS256)")
    public boolean isSecretLongEnough() {
        return !hasSecret() || secret.getBytes(StandardCharsets.UTF_8).length >= 32;
    }

    public boolean hasSecret() {
        return secret != null && !secret.isEmpty();
    }
}
