package io.couponevent.api.support;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.List;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;

/** HS256 tokens like the ones the load tests mint. */
public final class Tokens {

    private Tokens() {
    }

    public static String user(String sub) {
        return sign(Harness.JWT_SECRET, sub, List.of(), Instant.now().plusSeconds(600));
    }

    public static String admin(String sub) {
        return sign(Harness.JWT_SECRET, sub, List.of("admin"), Instant.now().plusSeconds(600));
    }

    public static String expired(String sub) {
        return sign(Harness.JWT_SECRET, sub, List.of(), Instant.now().minusSeconds(600));
    }

    public static String forged(String sub) {
        return sign("another-secret-of-at-least-32-bytes-000000", sub, List.of("admin"), Instant.now().plusSeconds(600));
    }

    public static String sign(String secret, String sub, List<String> roles, Instant expiresAt) {
        try {
            JWTClaimsSet.Builder claims = new JWTClaimsSet.Builder().issueTime(new Date())
                    .expirationTime(Date.from(expiresAt)).claim("roles", roles);
            if (sub != null) claims.subject(sub);
            SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims.build());
            jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
            return jwt.serialize();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }
}
