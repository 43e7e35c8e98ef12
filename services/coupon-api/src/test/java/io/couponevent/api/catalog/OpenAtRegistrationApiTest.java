package io.couponevent.api.catalog;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import io.couponevent.api.config.CatalogProperties;
import io.couponevent.api.config.CatalogProperties.CouponSpec;
import io.couponevent.api.support.Api.Reply;
import io.couponevent.api.support.ApiServerTest;
import io.couponevent.testsupport.Harness;
import io.couponevent.testsupport.Tokens;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue #38 item 6: examples that do not expire. A coupon declared without
 * {@code opensAt} opens when it is first registered, {@code closesAt} may be an ISO-8601
 * duration from the opening, and registering the same declaration again (the chart's
 * register hook on every {@code helm upgrade}, every API start) moves neither.
 */
class OpenAtRegistrationApiTest extends ApiServerTest {

	@Autowired
	JdbcTemplate jdbc;

	@Autowired
	CouponRegistry registry;

	@Test
	void withoutOpensAtTheCouponOpensAtItsRegistrationAndADurationClosesIt() {
		long id = Harness.uniqueCouponId();
		Instant before = Instant.now().minusMillis(1);
		Reply created = put(id, "{\"name\":\"rolling\",\"quantity\":5,\"closesAt\":\"PT2H\"}");
		Instant after = Instant.now().plusMillis(1);
		assertThat(created.status()).as(created.raw()).isEqualTo(201);
		Instant opens = Instant.parse(created.body().get("opensAt").asString());
		assertThat(opens).isBetween(before, after);
		assertThat(Instant.parse(created.body().get("closesAt").asString())).isEqualTo(opens.plus(Duration.ofHours(2)));
		assertThat(created.body().get("state").asString()).isEqualTo("OPEN");
		assertThat(this.api.issue(id, Tokens.user("u-" + UUID.randomUUID())).status()).isEqualTo(202);
	}

	@Test
	void registeringTheSameDeclarationAgainMovesNeitherOpeningNorClosing() throws InterruptedException {
		long id = Harness.uniqueCouponId();
		String body = "{\"name\":\"rolling\",\"quantity\":5,\"closesAt\":\"P1DT12H\"}";
		Reply first = put(id, body);
		assertThat(first.status()).as(first.raw()).isEqualTo(201);
		Thread.sleep(20);
		Reply again = put(id, body);
		assertThat(again.status()).as(again.raw()).isEqualTo(200);
		assertThat(again.body().get("opensAt").asString()).isEqualTo(first.body().get("opensAt").asString());
		assertThat(again.body().get("closesAt").asString()).isEqualTo(first.body().get("closesAt").asString());
		assertThat(Duration.between(Instant.parse(again.body().get("opensAt").asString()),
				Instant.parse(again.body().get("closesAt").asString())))
			.isEqualTo(Duration.ofHours(36));
	}

	/**
	 * The register hook (the API image with {@code --coupon.job=register}) runs on every
	 * install and upgrade: the catalog's coupon keeps the opening of its first run, and
	 * its quantity change applies as before.
	 */
	@Test
	void theCatalogRegistrationKeepsTheFirstOpening() throws InterruptedException {
		long id = Harness.uniqueCouponId();
		register(new CouponSpec(id, "catalog", 10, null, "PT30M"));
		Instant opens = mysql(id, "opens_at");
		assertThat(mysql(id, "closes_at")).isEqualTo(opens.plus(Duration.ofMinutes(30)));
		Thread.sleep(20);
		register(new CouponSpec(id, "catalog", 12, null, "PT30M"));
		assertThat(mysql(id, "opens_at")).isEqualTo(opens);
		assertThat(mysql(id, "closes_at")).isEqualTo(opens.plus(Duration.ofMinutes(30)));
		assertThat(this.jdbc.queryForObject("SELECT quantity FROM coupons WHERE id = ?", Integer.class, id))
			.isEqualTo(12);
	}

	/**
	 * A coupon scheduled for later and declared again without {@code opensAt} opens now;
	 * one already open keeps its opening.
	 */
	@Test
	void droppingAFutureOpensAtOpensTheCouponNow() {
		long id = Harness.uniqueCouponId();
		Instant later = Instant.now().plus(Duration.ofDays(1)).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
		Reply scheduled = put(id,
				"{\"name\":\"later\",\"quantity\":5,\"opensAt\":\"" + later + "\",\"closesAt\":\"PT1H\"}");
		assertThat(scheduled.status()).as(scheduled.raw()).isEqualTo(201);
		assertThat(scheduled.body().get("state").asString()).isEqualTo("SCHEDULED");
		assertThat(Instant.parse(scheduled.body().get("closesAt").asString()))
			.isEqualTo(later.plus(Duration.ofHours(1)));
		Reply now = put(id, "{\"name\":\"later\",\"quantity\":5,\"closesAt\":\"PT1H\"}");
		assertThat(now.status()).as(now.raw()).isEqualTo(200);
		assertThat(now.body().get("state").asString()).isEqualTo("OPEN");
		assertThat(Instant.parse(now.body().get("opensAt").asString())).isBefore(Instant.now().plusMillis(1));
	}

	@Test
	void aWindowThatCannotBeReadOrClosesFirstIs400AndCreatesNothing() {
		List<String> bodies = List.of("{\"name\":\"bad\",\"quantity\":5}",
				"{\"name\":\"bad\",\"quantity\":5,\"closesAt\":null}",
				"{\"name\":\"bad\",\"quantity\":5,\"closesAt\":\"tomorrow\"}",
				"{\"name\":\"bad\",\"quantity\":5,\"closesAt\":\"PT0S\"}",
				"{\"name\":\"bad\",\"quantity\":5,\"closesAt\":\"-PT1H\"}",
				"{\"name\":\"bad\",\"quantity\":5,\"closesAt\":\"P1M\"}",
				"{\"name\":\"bad\",\"quantity\":5,\"closesAt\":\"PT\"}",
				"{\"name\":\"bad\",\"quantity\":5,\"closesAt\":\"PT99999999999999999999H\"}",
				"{\"name\":\"bad\",\"quantity\":5,\"closesAt\":\"PT2562047788015215H\"}",
				"{\"name\":\"bad\",\"quantity\":5,\"closesAt\":\"P3000000D\"}",
				"{\"name\":\"bad\",\"quantity\":5,\"closesAt\":\"2020-01-01T00:00:00Z\"}",
				"{\"name\":\"bad\",\"quantity\":5,\"opensAt\":\"9999-12-31T00:00:00Z\",\"closesAt\":\"P2D\"}",
				"{\"name\":\"bad\",\"quantity\":5,\"closesAt\":[\"PT1H\"]}",
				// An empty opensAt is a wrong value, not an absent one (Jackson would
				// read it as null).
				"{\"name\":\"bad\",\"quantity\":5,\"opensAt\":\"\",\"closesAt\":\"PT1H\"}",
				"{\"name\":\"bad\",\"quantity\":5,\"opensAt\":\"  \",\"closesAt\":\"PT1H\"}");
		for (String body : bodies) {
			long id = Harness.uniqueCouponId();
			Reply reply = put(id, body);
			assertThat(reply.status()).as(body + " -> " + reply.raw()).isEqualTo(400);
			assertThat(reply.contentType()).as(body).startsWith("application/problem+json");
			assertThat(this.api.call("GET", "/api/v1/coupons/" + id, null, null, null).status()).as(body)
				.isEqualTo(404);
		}
	}

	private void register(CouponSpec spec) {
		new CatalogRegistration(new CatalogProperties(List.of(spec), false), this.registry).registerAll();
	}

	private Instant mysql(long id, String column) {
		return this.jdbc.queryForObject("SELECT " + column + " FROM coupons WHERE id = ?",
				(rs, row) -> io.couponevent.common.jdbc.SqlDateTime.read(rs, column), id);
	}

	private Reply put(long id, String body) {
		return this.api.call("PUT", "/api/v1/admin/coupons/" + id, Tokens.admin("ops"), "application/json", body);
	}

}
