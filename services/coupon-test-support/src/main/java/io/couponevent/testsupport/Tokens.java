package io.couponevent.testsupport;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;

/**
 * HS256 tokens like the ones the load tests mint: the user is {@code sub}, admins carry
 * {@code roles: ["admin"]}.
 */
public final class Tokens {

	private static final Duration VALID_FOR = Duration.ofMinutes(10);

	private Tokens() {
	}

	public static String user(String sub) {
		return token(sub, List.of(), VALID_FOR);
	}

	public static String admin(String sub) {
		return token(sub, List.of("admin"), VALID_FOR);
	}

	public static String token(String sub, List<String> roles) {
		return token(sub, roles, VALID_FOR);
	}

	/** Signed with the harness's secret ({@link Harness#JWT_SECRET}). */
	public static String token(String sub, List<String> roles, Duration validFor) {
		return sign(Harness.JWT_SECRET, sub, roles, Instant.now().plus(validFor));
	}

	public static String expired(String sub) {
		return sign(Harness.JWT_SECRET, sub, List.of(), Instant.now().minus(VALID_FOR));
	}

	/** An admin token signed with another key. */
	public static String forged(String sub) {
		return sign("another-secret-of-at-least-32-bytes-000000", sub, List.of("admin"), Instant.now().plus(VALID_FOR));
	}

	/** Any token; a {@code null} subject leaves {@code sub} out. */
	public static String sign(String secret, String sub, List<String> roles, Instant expiresAt) {
		JWTClaimsSet.Builder claims = new JWTClaimsSet.Builder().issueTime(new Date())
			.expirationTime(Date.from(expiresAt))
			.claim("roles", roles);
		if (sub != null) {
			claims.subject(sub);
		}
		return sign(secret, claims.build());
	}

	/**
	 * A token valid for ten minutes, signed with the harness's secret, with these extra
	 * claims ({@code iss}, {@code aud}, ...).
	 */
	public static String withClaims(String sub, List<String> roles, Map<String, Object> claims) {
		return withClaims(sub, roles, claims, Instant.now().plus(VALID_FOR));
	}

	/** As {@link #withClaims}, but without {@code exp}: a token that never expires. */
	public static String withoutExpiry(String sub, List<String> roles, Map<String, Object> claims) {
		return withClaims(sub, roles, claims, null);
	}

	private static String withClaims(String sub, List<String> roles, Map<String, Object> claims, Instant expiresAt) {
		JWTClaimsSet.Builder builder = new JWTClaimsSet.Builder().issueTime(new Date())
			.subject(sub)
			.claim("roles", roles);
		if (expiresAt != null) {
			builder.expirationTime(Date.from(expiresAt));
		}
		claims.forEach(builder::claim);
		return sign(Harness.JWT_SECRET, builder.build());
	}

	private static String sign(String secret, JWTClaimsSet claims) {
		SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
		try {
			jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
		}
		catch (JOSEException ex) {
			throw new IllegalStateException(ex);
		}
		return jwt.serialize();
	}

}
