package io.couponevent.common.security;

import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The common HS256 token, accepted without Nimbus and Spring Security's claim conversion:
 * the hot path needs only its subject. It answers only for a token it fully accepts, with
 * the checks the services' {@code JwtDecoder} makes ({@link CouponTokens#decoder} with
 * Spring Security's default validators and {@link CouponTokens#subjectProblem}): HS256
 * signature, {@code typ} absent or {@code JWT}, {@code exp} present and, like
 * {@code nbf}, within the 60 s clock skew, {@code iss} and {@code aud} as configured, a
 * valid subject. Anything else (another header member, a claim of an unexpected type, a
 * bad signature, an expired token) returns {@code null}, and the caller asks the decoder,
 * whose answer and error stay authoritative.
 * <p>
 * Why: per request, Nimbus looks up a {@code Mac} through the JCA providers and builds
 * three claim maps; that was the largest single share of the issuance path's CPU. Here
 * the MAC comes from {@link HmacSha256}'s pool.
 */
public final class Hs256FastPath {

	/** {@code JwtTimestampValidator}'s default. */
	static final Duration CLOCK_SKEW = Duration.ofSeconds(60);

	private static final Base64.Decoder BASE64URL = Base64.getUrlDecoder();

	private final HmacSha256 hmac;

	private final JsonMapper json;

	private final Clock clock;

	/** The {@code iss} a token must carry, or {@code null}. */
	private final String issuer;

	/** A value the token's {@code aud} must hold, or {@code null}. */
	private final String audience;

	private Hs256FastPath(HmacSha256 hmac, JsonMapper json, Clock clock, String issuer, String audience) {
		this.hmac = hmac;
		this.json = json;
		this.clock = clock;
		this.issuer = issuer;
		this.audience = audience;
	}

	/**
	 * The fast path for these properties, or {@code null} when tokens are verified
	 * against an identity provider's keys (nothing to shortcut).
	 */
	public static Hs256FastPath of(JwtProperties properties, JsonMapper json, Clock clock) {
		if (!properties.hasSecret()) {
			return null;
		}
		return new Hs256FastPath(new HmacSha256(properties.secret()), json, clock, properties.issuer(),
				properties.audience());
	}

	/**
	 * The subject of a token this accepts, or {@code null}: not decided here, ask the
	 * decoder.
	 */
	public String subject(String token) {
		int headerEnd = token.indexOf('.');
		int payloadEnd = headerEnd < 0 ? -1 : token.indexOf('.', headerEnd + 1);
		if (headerEnd < 1 || payloadEnd < headerEnd + 2 || payloadEnd == token.length() - 1
				|| !base64UrlWithDots(token)) {
			return null;
		}
		try {
			byte[] signature = BASE64URL.decode(token.substring(payloadEnd + 1));
			if (!MessageDigest.isEqual(sign(token, payloadEnd), signature)) {
				return null;
			}
			if (!headerAccepted(this.json.readTree(BASE64URL.decode(token.substring(0, headerEnd))))) {
				return null;
			}
			return acceptedSubject(this.json.readTree(BASE64URL.decode(token.substring(headerEnd + 1, payloadEnd))));
		}
		catch (JacksonException | IllegalArgumentException ex) {
			return null;
		}
	}

	private byte[] sign(String token, int signedEnd) {
		// The signing input is ASCII: the characters were checked to be base64url or
		// dots.
		return this.hmac.sign(token.substring(0, signedEnd));
	}

	/**
	 * Only {@code alg} HS256 and an optional {@code typ} JWT: no {@code crit}, no keys.
	 */
	private static boolean headerAccepted(JsonNode header) {
		if (!header.isObject() || !text(header.get("alg"), "HS256")) {
			return false;
		}
		JsonNode typ = header.get("typ");
		int members = 1;
		if (typ != null) {
			if (!typ.isString() || !(typ.asString().isEmpty() || typ.asString().equalsIgnoreCase("JWT"))) {
				return false;
			}
			members++;
		}
		return header.size() == members;
	}

	private String acceptedSubject(JsonNode claims) {
		if (!claims.isObject()) {
			return null;
		}
		long now = this.clock.millis();
		JsonNode exp = claims.get("exp");
		if (!epochSeconds(exp) || now - CLOCK_SKEW.toMillis() > exp.asLong() * 1000) {
			return null;
		}
		JsonNode nbf = claims.get("nbf");
		if (nbf != null && (!epochSeconds(nbf) || now + CLOCK_SKEW.toMillis() < nbf.asLong() * 1000)) {
			return null;
		}
		JsonNode iat = claims.get("iat");
		if (iat != null && !epochSeconds(iat)) {
			return null;
		}
		JsonNode sub = claims.get("sub");
		if (sub == null || !issuerAccepted(claims.get("iss")) || !audienceAccepted(claims.get("aud"))) {
			return null;
		}
		for (Map.Entry<String, JsonNode> claim : claims.properties()) {
			if (!claimAccepted(claim.getKey(), claim.getValue())) {
				return null;
			}
		}
		String subject = sub.asString();
		return CouponTokens.subjectProblem(subject) == null ? subject : null;
	}

	/** {@code JwtIssuerValidator}: the configured issuer, exactly. */
	private boolean issuerAccepted(JsonNode iss) {
		return this.issuer == null || text(iss, this.issuer);
	}

	/**
	 * {@code JwtAudienceValidator}: the configured audience, as the claim's one string or
	 * among its array.
	 */
	private boolean audienceAccepted(JsonNode aud) {
		if (this.audience == null) {
			return true;
		}
		if (aud == null) {
			return false;
		}
		return text(aud, this.audience) || (aud.isArray() && aud.valueStream().anyMatch((a) -> text(a, this.audience)));
	}

	/**
	 * The registered claims Nimbus and Spring Security type-check, as they accept them;
	 * {@code cnf} (a certificate-bound token) is left to the decoder's validator.
	 */
	private static boolean claimAccepted(String name, JsonNode value) {
		return switch (name) {
			case "sub", "iss", "jti" -> value.isString();
			case "aud" -> value.isString() || (value.isArray() && value.valueStream().allMatch(JsonNode::isString));
			case "cnf" -> false;
			default -> true;
		};
	}

	/** A whole number of seconds that {@code Instant} and {@code Date} can hold. */
	private static boolean epochSeconds(JsonNode value) {
		return value != null && value.isIntegralNumber() && value.canConvertToLong() && value.asLong() >= 0
				&& value.asLong() < 253_402_300_800L;
	}

	private static boolean text(JsonNode node, String expected) {
		return node != null && node.isString() && expected.equals(node.asString());
	}

	/**
	 * Three base64url segments without padding: anything else (padding, spaces, other
	 * characters) is unusual enough for the decoder to judge.
	 */
	private static boolean base64UrlWithDots(String token) {
		int dots = 0;
		for (int i = 0; i < token.length(); i++) {
			char c = token.charAt(i);
			if (c == '.') {
				dots++;
			}
			else if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'
					|| c == '_')) {
				return false;
			}
		}
		return dots == 2;
	}

}
