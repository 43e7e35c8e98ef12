package io.couponevent.api.web;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import io.couponevent.api.issuance.ReservationStore;
import io.couponevent.api.support.Api;
import io.couponevent.api.support.Api.Reply;
import io.couponevent.api.support.ApiServerTest;
import io.couponevent.common.jdbc.SqlDateTime;
import io.couponevent.testsupport.Harness;
import io.couponevent.testsupport.Kafka;
import io.couponevent.testsupport.Tokens;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/** The HTTP contract against the real Redis Cluster, Kafka and MariaDB of the harness. */
class IssuanceApiTest extends ApiServerTest {

	/**
	 * A fresh token per call: this class can run longer than a token's 10 minutes on a
	 * starved box.
	 */
	private static String admin() {
		return Tokens.admin("ops");
	}

	@Autowired
	ReservationStore store;

	@Autowired
	JdbcTemplate jdbc;

	@Autowired
	JsonMapper json;

	private long openCoupon(int quantity) {
		long id = Harness.uniqueCouponId();
		Instant now = Instant.now();
		Reply created = api.putCoupon(id, admin(), "Coupon " + id, quantity, now.minusSeconds(60),
				now.plusSeconds(3600));
		assertThat(created.status()).as(created.raw()).isEqualTo(201);
		return id;
	}

	@Test
	void acceptedDuplicateSoldOutAndStatus() {
		long id = openCoupon(2);
		String alice = "alice-" + UUID.randomUUID();
		try (Kafka.Probe probe = Kafka.harness().probe(Harness.TOPIC)) {
			Reply accepted = api.issue(id, Tokens.user(alice));
			assertThat(accepted.status()).as(accepted.raw()).isEqualTo(202);
			assertThat(accepted.body().get("status").asString()).isEqualTo("PENDING");
			assertThat(accepted.body().get("userId").asString()).isEqualTo(alice);
			assertThat(accepted.location()).endsWith("/api/v1/coupons/" + id + "/issuances/me");

			List<ConsumerRecord<String, String>> records = probe.recordsFor(id, Duration.ofSeconds(3));
			assertThat(records).hasSize(1);
			assertThat(records.get(0).key()).isEqualTo(id + ":" + alice);
			JsonNode message = json.readTree(records.get(0).value());
			assertThat(message.get("couponId").asLong()).isEqualTo(id);
			assertThat(message.get("userId").asString()).isEqualTo(alice);
			assertThat(message.get("slot").asInt()).isEqualTo(1);
			assertThat(UUID.fromString(message.get("eventId").asString())).isNotNull();
			assertThat(Instant.parse(message.get("reservedAt").asString())).isBefore(Instant.now().plusSeconds(1));
		}
		Reply me = api.call("GET", "/api/v1/coupons/" + id + "/issuances/me", Tokens.user(alice), null, null);
		assertThat(me.body().get("status").asString()).isEqualTo("PENDING");

		Reply again = api.issue(id, Tokens.user(alice));
		assertThat(again.status()).isEqualTo(409);
		assertThat(again.code()).isEqualTo("ALREADY_ISSUED");
		assertThat(again.contentType()).startsWith("application/problem+json");

		Reply info = api.call("GET", "/api/v1/coupons/" + id, null, null, null);
		assertThat(info.status()).isEqualTo(200);
		assertThat(info.body().get("remaining").asLong()).isEqualTo(1);
		assertThat(info.body().get("state").asString()).isEqualTo("OPEN");

		assertThat(api.issue(id, Tokens.user("bob-" + UUID.randomUUID())).status()).isEqualTo(202);
		Reply soldOut = api.issue(id, Tokens.user("carol-" + UUID.randomUUID()));
		assertThat(soldOut.status()).isEqualTo(410);
		assertThat(soldOut.code()).isEqualTo("SOLD_OUT");
		assertThat(api.call("GET", "/api/v1/coupons/" + id, null, null, null).body().get("state").asString())
			.isEqualTo("SOLD_OUT");

		Reply report = api.call("GET", "/api/v1/admin/coupons/" + id + "/reconciliation", admin(), null, null);
		assertThat(report.status()).isEqualTo(200);
		assertThat(report.body().get("redisIssued").asLong()).isEqualTo(2);
		assertThat(report.body().get("mysqlRows").asLong()).isZero();
		assertThat(report.body().get("pending").asLong()).isEqualTo(2);
		assertThat(report.body().get("consistent").asBoolean()).isFalse();
	}

	@Test
	void aConflictResendsAReservationWhoseRecordNeverLeft() throws InterruptedException {
		long id = openCoupon(2);
		String erin = "erin-" + UUID.randomUUID();
		// The script ran but the caller never sent (its Redis call timed out on the
		// client side).
		var decision = store.reserve(id, erin);
		assertThat(decision.outcome().name()).isEqualTo("ACCEPTED");
		try (Kafka.Probe probe = Kafka.harness().probe(Harness.TOPIC)) {
			Reply again = api.issue(id, Tokens.user(erin));
			// A resend that outlasts the send timeout answers 503 (the 409 would be a
			// promise nobody keeps); a client retries, as it would after any 503.
			for (int i = 0; again.status() == 503 && i < 10; i++) {
				Thread.sleep(1000);
				again = api.issue(id, Tokens.user(erin));
			}
			assertThat(again.status()).as(again.raw()).isEqualTo(409);
			assertThat(again.code()).isEqualTo("ALREADY_ISSUED");
			List<ConsumerRecord<String, String>> records = probe.recordsFor(id, Duration.ofSeconds(10));
			assertThat(records).as("the 409 put the held reservation on its way to MySQL").isNotEmpty();
			for (ConsumerRecord<String, String> record : records) {
				JsonNode message = json.readTree(record.value());
				assertThat(message.get("userId").asString()).isEqualTo(erin);
				assertThat(message.get("slot").asInt()).isEqualTo(decision.slot());
				assertThat(Instant.parse(message.get("reservedAt").asString())).isEqualTo(decision.reservedAt());
			}
		}
	}

	@Test
	void statusIsIssuedOnceMysqlHasTheRow() {
		long id = openCoupon(3);
		String user = "dave-" + UUID.randomUUID();
		assertThat(api.call("GET", "/api/v1/coupons/" + id + "/issuances/me", Tokens.user(user), null, null)
			.body()
			.get("status")
			.asString()).isEqualTo("NONE");
		assertThat(api.issue(id, Tokens.user(user)).status()).isEqualTo(202);
		var reservation = store.find(id, user).orElseThrow();
		// What coupon-consumer writes for this reservation.
		jdbc.update(
				"INSERT INTO issued_coupons (coupon_id, user_id, slot, event_id, reserved_at) VALUES (?, ?, ?, ?, ?)",
				id, user, reservation.slot(), UUID.randomUUID().toString(), SqlDateTime.of(reservation.reservedAt()));
		Reply me = api.call("GET", "/api/v1/coupons/" + id + "/issuances/me", Tokens.user(user), null, null);
		assertThat(me.body().get("status").asString()).isEqualTo("ISSUED");
		assertThat(Instant.parse(me.body().get("issuedAt").asString())).isBefore(Instant.now().plusSeconds(5));
		Reply report = api.call("GET", "/api/v1/admin/coupons/" + id + "/reconciliation", admin(), null, null);
		assertThat(report.body().get("consistent").asBoolean()).isTrue();
		assertThat(report.body().get("remaining").asLong()).isEqualTo(2);
	}

	@Test
	void windowAndPause() {
		long later = Harness.uniqueCouponId();
		Instant now = Instant.now();
		assertThat(api.putCoupon(later, admin(), "later", 5, now.plusSeconds(3600), now.plusSeconds(7200)).status())
			.isEqualTo(201);
		Reply notOpen = api.issue(later, Tokens.user("u1"));
		assertThat(notOpen.status()).isEqualTo(403);
		assertThat(notOpen.code()).isEqualTo("NOT_OPEN_YET");
		assertThat(api.call("GET", "/api/v1/coupons/" + later, null, null, null).body().get("state").asString())
			.isEqualTo("SCHEDULED");
		// Moving the window (admin update, 200 this time) opens it for everyone at once.
		assertThat(api.putCoupon(later, admin(), "later", 5, now.minusSeconds(10), now.plusSeconds(7200)).status())
			.isEqualTo(200);
		assertThat(api.issue(later, Tokens.user("u1")).status()).isEqualTo(202);

		long id = openCoupon(5);
		assertThat(api.call("POST", "/api/v1/admin/coupons/" + id + "/pause", admin(), null, null).status())
			.isEqualTo(200);
		Reply paused = api.issue(id, Tokens.user("u2"));
		assertThat(paused.status()).isEqualTo(403);
		assertThat(paused.code()).isEqualTo("PAUSED");
		assertThat(api.call("POST", "/api/v1/admin/coupons/" + id + "/resume", admin(), null, null).status())
			.isEqualTo(200);
		assertThat(api.issue(id, Tokens.user("u2")).status()).isEqualTo(202);

		long closed = Harness.uniqueCouponId();
		api.putCoupon(closed, admin(), "closed", 5, now.minusSeconds(7200), now.minusSeconds(1));
		Reply over = api.issue(closed, Tokens.user("u3"));
		assertThat(over.status()).isEqualTo(403);
		assertThat(over.code()).isEqualTo("CLOSED");
	}

	@Test
	void badInputIsAClear4xxAndWritesNothing() {
		long id = openCoupon(5);
		String user = "mallory-" + UUID.randomUUID();
		String token = Tokens.user(user);
		String path = "/api/v1/coupons/" + id + "/issuances";
		try (Kafka.Probe probe = Kafka.harness().probe(Harness.TOPIC)) {
			expect(api.call("POST", path, token, "application/json", "{\"broken\":"), 400, "INVALID_REQUEST");
			expect(api.call("POST", path, token, "application/json", "[1,2]"), 400, "INVALID_REQUEST");
			expect(api.call("POST", path, token, "text/plain", "hello"), 415, "UNSUPPORTED_MEDIA_TYPE");
			for (String bad : List.of("abc", "0", "-1", "1.5", "99999999999999999999", "9223372036854775808", "%20")) {
				expect(api.call("POST", "/api/v1/coupons/" + bad + "/issuances", token, null, null), 400,
						"INVALID_REQUEST");
				expect(api.call("GET", "/api/v1/coupons/" + bad, null, null, null), 400, "INVALID_REQUEST");
			}
			expect(api.issue(Harness.uniqueCouponId(), token), 404, "COUPON_NOT_FOUND");
			expect(api.issue(id, null), 401, "UNAUTHENTICATED");
			expect(api.issue(id, Tokens.expired(user)), 401, "UNAUTHENTICATED");
			expect(api.issue(id, Tokens.forged(user)), 401, "UNAUTHENTICATED");
			expect(api.issue(id, "not-a-jwt"), 401, "UNAUTHENTICATED");
			expect(api.issue(id, Tokens.sign(Harness.JWT_SECRET, null, List.of(), Instant.now().plusSeconds(60))), 401,
					"UNAUTHENTICATED");
			expect(api.call("DELETE", path, token, null, null), 405, "METHOD_NOT_ALLOWED");
			expect(api.call("GET", "/api/v1/nothing-here", token, null, null), 404, "NOT_FOUND");

			// Admin endpoints: a user token is 403, a forged admin token 401, a bad body
			// 400.
			Instant now = Instant.now();
			expect(api.putCoupon(id, token, "hijack", 1_000_000, now, now.plusSeconds(10)), 403, "FORBIDDEN");
			expect(api.putCoupon(id, Tokens.forged("ops"), "hijack", 1_000_000, now, now.plusSeconds(10)), 401,
					"UNAUTHENTICATED");
			expect(api.call("POST", "/api/v1/admin/coupons/" + id + "/pause", token, null, null), 403, "FORBIDDEN");
			expect(api.putCoupon(id, admin(), "backwards", 5, now, now.minusSeconds(10)), 400, "INVALID_REQUEST");
			expect(api.putCoupon(id, admin(), "negative", -1, now, now.plusSeconds(10)), 400, "INVALID_REQUEST");
			expect(api.call("PUT", "/api/v1/admin/coupons/" + id, admin(), "application/json", "{\"name\":"), 400,
					"INVALID_REQUEST");
			expect(api.call("PUT", "/api/v1/admin/coupons/" + id, admin(), "application/json",
					"{\"name\":\"x\",\"quantity\":\"many\",\"opensAt\":\"x\",\"closesAt\":\"y\"}"), 400,
					"INVALID_REQUEST");

			assertThat(probe.recordsFor(id, Duration.ofSeconds(2))).as("no Kafka record").isEmpty();
		}
		assertThat(store.issuedCount(id)).as("no Redis reservation").isZero();
		assertThat(jdbc.queryForObject("SELECT quantity FROM coupons WHERE id = ?", Integer.class, id))
			.as("the coupon is unchanged")
			.isEqualTo(5);
		// The valid request still works afterwards: the refusals left no trace.
		assertThat(api.issue(id, token).status()).isEqualTo(202);
	}

	@Test
	void metricsCarryTheContractNames() {
		long id = openCoupon(1);
		api.issue(id, Tokens.user("m1"));
		api.issue(id, Tokens.user("m2"));
		Api management = new Api(env.getRequiredProperty("local.management.port", Integer.class));
		String scrape = management.get("/actuator/prometheus");
		assertThat(scrape)
			.contains("coupon_issuance_requests_total{application=\"coupon-api\",coupon=\"" + id
					+ "\",result=\"accepted\"} 1.0")
			.contains("coupon_issuance_requests_total{application=\"coupon-api\",coupon=\"" + id
					+ "\",result=\"sold_out\"} 1.0")
			.contains(
					"coupon_issuance_duration_seconds_bucket{application=\"coupon-api\",result=\"accepted\",le=\"0.005\"}")
			.contains(
					"coupon_issuance_duration_seconds_bucket{application=\"coupon-api\",result=\"accepted\",le=\"2.5\"}")
			.contains("coupon_stock_remaining{application=\"coupon-api\",coupon=\"" + id + "\"} 0.0")
			// present before anything was compensated or reconciled, so alerts see the
			// first one
			.contains("coupon_compensations_total{application=\"coupon-api\",reason=\"timeout\"}")
			.contains("coupon_reconciler_actions_total{action=\"release_stale\",application=\"coupon-api\"}");
		Reply readiness = management.call("GET", "/actuator/health/readiness", null, null, null);
		assertThat(readiness.status()).as(readiness.raw()).isEqualTo(200);
		assertThat(management.call("GET", "/actuator/health/liveness", null, null, null).status()).isEqualTo(200);
	}

	private static void expect(Reply reply, int status, String code) {
		assertThat(reply.status()).as(reply.raw()).isEqualTo(status);
		assertThat(reply.contentType()).as(reply.raw()).startsWith("application/problem+json");
		assertThat(reply.code()).as(reply.raw()).isEqualTo(code);
	}

}
