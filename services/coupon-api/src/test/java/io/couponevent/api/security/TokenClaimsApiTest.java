package io.couponevent.api.security;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.couponevent.api.support.Api.Reply;
import io.couponevent.api.support.ApiServerTest;
import io.couponevent.testsupport.Harness;
import io.couponevent.testsupport.Tokens;
import org.junit.jupiter.api.Test;

import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue #37 item 13: a token must expire, and with {@code coupon.security.jwt.issuer} and
 * {@code audience} set it must name both, on the issuance path (the HS256 fast path, then
 * the decoder) as on the admin API (the decoder alone). Real signed tokens through the
 * real filters.
 */
@TestPropertySource(properties = { "coupon.security.jwt.issuer=" + TokenClaimsApiTest.ISSUER,
		"coupon.security.jwt.audience=" + TokenClaimsApiTest.AUDIENCE })
class TokenClaimsApiTest extends ApiServerTest {

	static final String ISSUER = "https://idp.test/realms/coupon";

	static final String AUDIENCE = "coupon-api";

	private static final Map<String, Object> OURS = Map.of("iss", ISSUER, "aud", List.of("other", AUDIENCE));

	private static String admin() {
		return Tokens.withClaims("ops", List.of("admin"), OURS);
	}

	@Test
	void aTokenWithoutExpiryIsRefused() {
		long id = openCoupon();
		String user = "forever-" + UUID.randomUUID();
		expect401(this.api.issue(id, Tokens.withoutExpiry(user, List.of(), OURS)));
		expect401(putCoupon(id, Tokens.withoutExpiry("ops", List.of("admin"), OURS)));
		assertThat(this.api.issue(id, Tokens.withClaims(user, List.of(), OURS)).status()).isEqualTo(202);
	}

	@Test
	void anotherIssuerOrAudienceIsRefused() {
		long id = openCoupon();
		String user = "tenant-" + UUID.randomUUID();
		List<Map<String, Object>> foreign = List.of(Map.of("aud", AUDIENCE), Map.of("iss", ISSUER),
				Map.of("iss", "https://idp.test/realms/other", "aud", AUDIENCE),
				Map.of("iss", ISSUER, "aud", "another-api"));
		for (Map<String, Object> claims : foreign) {
			expect401(this.api.issue(id, Tokens.withClaims(user, List.of(), claims)));
			expect401(putCoupon(id, Tokens.withClaims("ops", List.of("admin"), claims)));
			expect401(this.api.call("GET", "/api/v1/coupons/" + id + "/issuances/me",
					Tokens.withClaims(user, List.of(), claims), null, null));
		}
		// The harness's plain tokens name neither.
		expect401(this.api.issue(id, Tokens.user(user)));
		expect401(putCoupon(id, Tokens.admin("ops")));
		assertThat(this.api.issue(id, Tokens.withClaims(user, List.of(), OURS)).status()).isEqualTo(202);
		assertThat(putCoupon(id, admin()).status()).isEqualTo(200);
	}

	private long openCoupon() {
		long id = Harness.uniqueCouponId();
		Reply created = putCoupon(id, admin());
		assertThat(created.status()).as(created.raw()).isEqualTo(201);
		return id;
	}

	private Reply putCoupon(long id, String token) {
		Instant now = Instant.now();
		return this.api.putCoupon(id, token, "Coupon " + id, 5, now.minusSeconds(60), now.plusSeconds(3600));
	}

	private static void expect401(Reply reply) {
		assertThat(reply.status()).as(reply.raw()).isEqualTo(401);
		assertThat(reply.code()).as(reply.raw()).isEqualTo("UNAUTHENTICATED");
	}

}
