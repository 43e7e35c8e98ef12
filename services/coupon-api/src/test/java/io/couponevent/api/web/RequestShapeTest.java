package io.couponevent.api.web;

import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest.BodyPublishers;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;

import io.couponevent.api.issuance.ReservationStore;
import io.couponevent.api.support.Api.Reply;
import io.couponevent.api.support.ApiServerTest;
import io.couponevent.testsupport.Harness;
import io.couponevent.testsupport.Tokens;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Request shapes that once answered 500 or were read whole (docs/reliability.md, bad
 * input): each is refused with a 4xx problem and reserves nothing.
 */
class RequestShapeTest extends ApiServerTest {

	@Autowired
	ReservationStore store;

	private static long coupon;

	@BeforeEach
	void sharedCoupon() {
		if (coupon == 0) {
			coupon = Harness.uniqueCouponId();
			Instant now = Instant.now();
			Reply created = api.putCoupon(coupon, Tokens.admin("ops"), "shapes", 1000, now.minusSeconds(60),
					now.plusSeconds(3600));
			assertThat(created.status()).as(created.raw()).isEqualTo(201);
		}
	}

	private String path() {
		return "/api/v1/coupons/" + coupon + "/issuances";
	}

	private void refusedWithNothingReserved(Reply reply, int status, String user) {
		assertThat(reply.status()).as(reply.raw()).isEqualTo(status);
		assertThat(reply.contentType()).startsWith("application/problem+json");
		assertThat(store.find(coupon, user)).isEmpty();
	}

	@ParameterizedTest
	@ValueSource(strings = { "*/*", "application/*", "multipart/form-data", "multipart/form-data; boundary=x",
			"application/x-www-form-urlencoded", ";;;", "json" })
	void bodiesTheApiNeverReadsAre415(String contentType) {
		String user = "shape-" + UUID.randomUUID();
		Reply reply = api.call("POST", path(), Tokens.user(user), contentType, "\u0001=b");
		refusedWithNothingReserved(reply, 415, user);
		assertThat(reply.code()).isEqualTo("UNSUPPORTED_MEDIA_TYPE");
	}

	@Test
	void aLargeBodyIs413ByItsLength() {
		String user = "huge-" + UUID.randomUUID();
		String body = "{\"pad\":\"" + "x".repeat(1_000_000) + "\"}";
		Reply reply = api.call("POST", path(), Tokens.user(user), "application/json", body);
		refusedWithNothingReserved(reply, 413, user);
		assertThat(reply.code()).isEqualTo("PAYLOAD_TOO_LARGE");
	}

	@Test
	void aLargeChunkedBodyIs413WhileRead() {
		String user = "chunked-" + UUID.randomUUID();
		byte[] body = ("{\"pad\":\"" + "x".repeat(100_000) + "\"}").getBytes(StandardCharsets.UTF_8);
		Reply reply = api.call("POST", path(), Tokens.user(user), "application/json",
				BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)));
		refusedWithNothingReserved(reply, 413, user);
	}

	@Test
	void aSmallChunkedJsonBodyIsStillAccepted() {
		String user = "small-" + UUID.randomUUID();
		byte[] body = "{\"note\":\"hi\"}".getBytes(StandardCharsets.UTF_8);
		Reply reply = api.call("POST", path(), Tokens.user(user), "application/json",
				BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)));
		assertThat(reply.status()).as(reply.raw()).isEqualTo(202);
	}

	@ParameterizedTest
	@ValueSource(strings = { " ", "\u2003", "\t" })
	void aSubjectWithSurroundingWhitespaceIs401(String space) {
		String user = "pad-" + UUID.randomUUID();
		refusedWithNothingReserved(api.issue(coupon, Tokens.user(user + space)), 401, user + space);
		refusedWithNothingReserved(api.issue(coupon, Tokens.user(space + user)), 401, space + user);
	}

	@Test
	void twoAuthorizationHeadersAre400() {
		String a = "first-" + UUID.randomUUID();
		String b = "second-" + UUID.randomUUID();
		Reply reply = api.call("POST", path(), Tokens.user(a), null, BodyPublishers.noBody(), "Authorization",
				"Bearer " + Tokens.user(b));
		refusedWithNothingReserved(reply, 400, a);
		assertThat(store.find(coupon, b)).isEmpty();
	}

	@Test
	void anInstantBeyondDateTimeIs400() {
		long id = Harness.uniqueCouponId();
		Reply far = api.call("PUT", "/api/v1/admin/coupons/" + id, Tokens.admin("ops"), "application/json",
				"{\"name\":\"far\",\"quantity\":1,\"opensAt\":\"+999999999-12-31T23:59:59Z\","
						+ "\"closesAt\":\"+1000000000-12-31T23:59:59Z\"}");
		assertThat(far.status()).as(far.raw()).isEqualTo(400);
		assertThat(far.raw()).contains("between 1000-01-01 and 9999-12-31");
		Reply early = api.putCoupon(id, Tokens.admin("ops"), "early", 1, Instant.parse("0000-01-01T00:00:00Z"),
				Instant.parse("2000-01-01T00:00:00Z"));
		assertThat(early.status()).as(early.raw()).isEqualTo(400);
	}

}
