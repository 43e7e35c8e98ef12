package io.couponevent.common.security;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The fast path accepts only what the services' decoder accepts, with the same subject;
 * and it does accept the common token, or it would save nothing.
 */
class Hs256FastPathTest {

	private static final String SECRET = "local-dev-secret-change-me-0123456789abcdef";

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static final long NOW = Instant.now().getEpochSecond();

	private final JwtProperties properties = new JwtProperties(SECRET, null, null, null);

	private final JwtDecoder decoder = CouponTokens.decoder(this.properties);

	private final Hs256FastPath fastPath = Hs256FastPath.of(this.properties, JSON,
			Clock.fixed(Instant.ofEpochSecond(NOW), ZoneOffset.UTC));

	private static String b64(String json) {
		return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
	}

	private static String sign(String header, String claims, String secret) throws Exception {
		String input = b64(header) + "." + b64(claims);
		Mac mac = Mac.getInstance("HmacSHA256");
		mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
		return input + "."
				+ Base64.getUrlEncoder()
					.withoutPadding()
					.encodeToString(mac.doFinal(input.getBytes(StandardCharsets.US_ASCII)));
	}

	private static String token(String header, String claims) throws Exception {
		return sign(header, claims, SECRET);
	}

	private static String hs256(String claims) throws Exception {
		return token("{\"alg\":\"HS256\"}", claims);
	}

	private String decoderSubject(String token) {
		try {
			return this.decoder.decode(token).getSubject();
		}
		catch (JwtException ex) {
			return null;
		}
	}

	@Test
	void acceptsTheCommonTokenWithItsSubject() throws Exception {
		String token = hs256("{\"sub\":\"user-1\",\"iat\":%d,\"exp\":%d}".formatted(NOW, NOW + 600));
		assertThat(this.fastPath.subject(token)).isEqualTo("user-1");
		assertThat(this.fastPath.subject(token("{\"alg\":\"HS256\",\"typ\":\"JWT\"}",
				"{\"sub\":\"u\",\"exp\":%d,\"nbf\":%d,\"roles\":[\"admin\"],\"aud\":[\"a\",\"b\"],\"iss\":\"i\"}"
					.formatted(NOW + 600, NOW - 10))))
			.isEqualTo("u");
	}

	@Test
	void neverAcceptsWhatTheDecoderRejectsNorAnswersOtherwise() throws Exception {
		long exp = NOW + 600;
		Map<String, String> cases = new LinkedHashMap<>();
		cases.put("common", hs256("{\"sub\":\"user-1\",\"exp\":%d}".formatted(exp)));
		cases.put("typ jwt lower case",
				token("{\"alg\":\"HS256\",\"typ\":\"jwt\"}", "{\"sub\":\"u\",\"exp\":%d}".formatted(exp)));
		cases.put("typ at+jwt",
				token("{\"alg\":\"HS256\",\"typ\":\"at+jwt\"}", "{\"sub\":\"u\",\"exp\":%d}".formatted(exp)));
		cases.put("other key", sign("{\"alg\":\"HS256\"}", "{\"sub\":\"u\",\"exp\":%d}".formatted(exp),
				"another-secret-of-at-least-32-bytes-0123456789"));
		cases.put("HS384", token("{\"alg\":\"HS384\"}", "{\"sub\":\"u\",\"exp\":%d}".formatted(exp)));
		cases.put("alg none", b64("{\"alg\":\"none\"}") + "." + b64("{\"sub\":\"u\",\"exp\":%d}".formatted(exp)) + ".");
		cases.put("crit",
				token("{\"alg\":\"HS256\",\"crit\":[\"x\"],\"x\":1}", "{\"sub\":\"u\",\"exp\":%d}".formatted(exp)));
		cases.put("kid", token("{\"alg\":\"HS256\",\"kid\":\"k\"}", "{\"sub\":\"u\",\"exp\":%d}".formatted(exp)));
		cases.put("expired", hs256("{\"sub\":\"u\",\"exp\":%d}".formatted(NOW - 120)));
		cases.put("expired within skew", hs256("{\"sub\":\"u\",\"exp\":%d}".formatted(NOW - 30)));
		cases.put("no exp", hs256("{\"sub\":\"u\"}"));
		cases.put("exp as text", hs256("{\"sub\":\"u\",\"exp\":\"%d\"}".formatted(exp)));
		cases.put("exp fractional", hs256("{\"sub\":\"u\",\"exp\":%d.5}".formatted(exp)));
		cases.put("not yet valid", hs256("{\"sub\":\"u\",\"exp\":%d,\"nbf\":%d}".formatted(exp, NOW + 300)));
		cases.put("nbf within skew", hs256("{\"sub\":\"u\",\"exp\":%d,\"nbf\":%d}".formatted(exp, NOW + 30)));
		cases.put("iat as text", hs256("{\"sub\":\"u\",\"exp\":%d,\"iat\":\"x\"}".formatted(exp)));
		cases.put("no sub", hs256("{\"exp\":%d}".formatted(exp)));
		cases.put("sub a number", hs256("{\"sub\":42,\"exp\":%d}".formatted(exp)));
		cases.put("sub blank", hs256("{\"sub\":\"  \",\"exp\":%d}".formatted(exp)));
		cases.put("sub 65 chars", hs256("{\"sub\":\"%s\",\"exp\":%d}".formatted("x".repeat(65), exp)));
		cases.put("sub 64 chars", hs256("{\"sub\":\"%s\",\"exp\":%d}".formatted("x".repeat(64), exp)));
		cases.put("sub control", hs256("{\"sub\":\"a\\u0001b\",\"exp\":%d}".formatted(exp)));
		cases.put("sub padded", hs256("{\"sub\":\"a \",\"exp\":%d}".formatted(exp)));
		cases.put("sub unicode", hs256("{\"sub\":\"usér-ü-東京\",\"exp\":%d}".formatted(exp)));
		cases.put("iss a number", hs256("{\"sub\":\"u\",\"exp\":%d,\"iss\":7}".formatted(exp)));
		cases.put("aud with a number", hs256("{\"sub\":\"u\",\"exp\":%d,\"aud\":[\"a\",1]}".formatted(exp)));
		cases.put("cnf", hs256("{\"sub\":\"u\",\"exp\":%d,\"cnf\":{\"x5t#S256\":\"abc\"}}".formatted(exp)));
		cases.put("claims an array", hs256("[1,2]"));
		cases.put("claims not json", token("{\"alg\":\"HS256\"}", "not json"));
		String common = cases.get("common");
		cases.put("four segments", common + ".x");
		cases.put("padded signature", common + "=");
		cases.put("signature cut", common.substring(0, common.length() - 2));
		cases.put("empty payload",
				common.substring(0, common.indexOf('.') + 1) + common.substring(common.lastIndexOf('.')));
		int accepted = 0;
		for (Map.Entry<String, String> c : cases.entrySet()) {
			String fast = this.fastPath.subject(c.getValue());
			if (fast != null) {
				accepted++;
				assertThat(decoderSubject(c.getValue())).as(c.getKey() + ": the decoder must accept, same subject")
					.isEqualTo(fast);
			}
		}
		for (String name : List.of("common", "typ jwt lower case", "expired within skew", "nbf within skew",
				"sub 64 chars", "sub unicode")) {
			assertThat(this.fastPath.subject(cases.get(name))).as(name + " is the fast path's to accept").isNotNull();
		}
		for (String name : List.of("other key", "HS384", "alg none", "expired", "not yet valid", "sub padded",
				"sub control", "no sub", "four segments", "no exp")) {
			assertThat(this.fastPath.subject(cases.get(name))).as(name).isNull();
			assertThat(decoderSubject(cases.get(name))).as(name + ": the decoder rejects it too").isNull();
		}
		assertThat(accepted).isEqualTo(6);
	}

	/**
	 * With an issuer and an audience configured, a token must name both: the decoder and
	 * the fast path refuse the same tokens.
	 */
	@Test
	void issuerAndAudienceWhenConfigured() throws Exception {
		JwtProperties strict = new JwtProperties(SECRET, null, "https://idp.example/", "coupon-api");
		JwtDecoder strictDecoder = CouponTokens.decoder(strict);
		Hs256FastPath strictFastPath = Hs256FastPath.of(strict, JSON,
				Clock.fixed(Instant.ofEpochSecond(NOW), ZoneOffset.UTC));
		long exp = NOW + 600;
		String iss = "\"iss\":\"https://idp.example/\"";
		Map<String, String> accepted = new LinkedHashMap<>();
		accepted.put("aud a string", hs256("{\"sub\":\"u\",\"exp\":%d,%s,\"aud\":\"coupon-api\"}".formatted(exp, iss)));
		accepted.put("aud among others",
				hs256("{\"sub\":\"u\",\"exp\":%d,%s,\"aud\":[\"x\",\"coupon-api\"]}".formatted(exp, iss)));
		Map<String, String> refused = new LinkedHashMap<>();
		refused.put("no iss", hs256("{\"sub\":\"u\",\"exp\":%d,\"aud\":\"coupon-api\"}".formatted(exp)));
		refused.put("other iss", hs256(
				"{\"sub\":\"u\",\"exp\":%d,\"iss\":\"https://other.example/\",\"aud\":\"coupon-api\"}".formatted(exp)));
		refused.put("iss without its slash", hs256(
				"{\"sub\":\"u\",\"exp\":%d,\"iss\":\"https://idp.example\",\"aud\":\"coupon-api\"}".formatted(exp)));
		refused.put("no aud", hs256("{\"sub\":\"u\",\"exp\":%d,%s}".formatted(exp, iss)));
		refused.put("other aud", hs256("{\"sub\":\"u\",\"exp\":%d,%s,\"aud\":[\"x\",\"y\"]}".formatted(exp, iss)));
		refused.put("aud empty", hs256("{\"sub\":\"u\",\"exp\":%d,%s,\"aud\":[]}".formatted(exp, iss)));
		refused.put("no exp", hs256("{\"sub\":\"u\",%s,\"aud\":\"coupon-api\"}".formatted(iss)));
		for (Map.Entry<String, String> c : accepted.entrySet()) {
			assertThat(strictFastPath.subject(c.getValue())).as(c.getKey()).isEqualTo("u");
			assertThat(strictDecoder.decode(c.getValue()).getSubject()).as(c.getKey()).isEqualTo("u");
		}
		for (Map.Entry<String, String> c : refused.entrySet()) {
			assertThat(strictFastPath.subject(c.getValue())).as(c.getKey()).isNull();
			assertThatExceptionOfType(JwtException.class).as(c.getKey())
				.isThrownBy(() -> strictDecoder.decode(c.getValue()));
		}
		// Unset, neither is asked for.
		assertThat(this.fastPath.subject(refused.get("no aud"))).isEqualTo("u");
		assertThat(this.fastPath.subject(refused.get("other iss"))).isEqualTo("u");
	}

	@Test
	void noFastPathForAnIdentityProvidersKeys() {
		assertThat(Hs256FastPath.of(new JwtProperties(null, java.net.URI.create("http://127.0.0.1:1/jwks"), null, null),
				JSON, Clock.systemUTC()))
			.isNull();
	}

}
