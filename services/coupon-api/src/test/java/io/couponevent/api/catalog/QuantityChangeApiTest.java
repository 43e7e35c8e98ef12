package io.couponevent.api.catalog;

import java.time.Instant;
import java.util.UUID;

import io.couponevent.api.support.Api.Reply;
import io.couponevent.api.support.ApiServerTest;
import io.couponevent.testsupport.Harness;
import io.couponevent.testsupport.Tokens;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue #37 item 1: a quantity change leaves MySQL and Redis agreeing. Lowering below the
 * slot numbers Redis has already handed out (reservations the consumer has not written
 * yet: MySQL alone cannot see them) is refused as a whole, so Redis never goes on selling
 * slots whose {@code coupon_slots} rows were deleted.
 */
class QuantityChangeApiTest extends ApiServerTest {

	@Autowired
	JdbcTemplate jdbc;

	@Autowired
	StringRedisTemplate redis;

	private final Instant opensAt = Instant.now().minusSeconds(60);

	private final Instant closesAt = Instant.now().plusSeconds(3600);

	@Test
	void loweringBelowTheSlotsRedisHandedOutIsRefusedAndChangesNothing() {
		long id = Harness.uniqueCouponId();
		assertThat(put(id, 5).status()).isEqualTo(201);
		issue(id, 3);
		long version = mysqlVersion(id);

		Reply lowered = put(id, 2);
		assertThat(lowered.status()).as(lowered.raw()).isEqualTo(409);
		assertThat(lowered.contentType()).startsWith("application/problem+json");
		assertThat(lowered.code()).isEqualTo("QUANTITY_BELOW_ISSUED");

		assertThat(mysqlQuantity(id)).as("MySQL keeps the quantity Redis sells").isEqualTo(5);
		assertThat(mysqlVersion(id)).isEqualTo(version);
		assertThat(slotRows(id)).as("slot rows 1..5 stay").isEqualTo(5);
		assertThat(redisQuantity(id)).isEqualTo("5");
		assertThat(lowered.body().get("detail").asString()).as("names what Redis handed out").contains("3");
		// Slots 4 and 5 are still sold, and still have their rows.
		issue(id, 2);
	}

	@Test
	void loweringToWhatRedisLeftLowersBoth() {
		long id = Harness.uniqueCouponId();
		assertThat(put(id, 5).status()).isEqualTo(201);
		issue(id, 2);
		Reply lowered = put(id, 3);
		assertThat(lowered.status()).as(lowered.raw()).isEqualTo(200);
		assertThat(lowered.body().get("quantity").asInt()).isEqualTo(3);
		assertThat(mysqlQuantity(id)).isEqualTo(3);
		assertThat(slotRows(id)).isEqualTo(3);
		assertThat(redisQuantity(id)).isEqualTo("3");
		assertThat(this.api.issue(id, Tokens.user("third-" + UUID.randomUUID())).status()).isEqualTo(202);
		assertThat(this.api.issue(id, Tokens.user("fourth-" + UUID.randomUUID())).code()).isEqualTo("SOLD_OUT");
	}

	/**
	 * {@code users} new users each get a 202 (a reservation, no row: no consumer runs).
	 */
	private void issue(long id, int users) {
		for (int i = 0; i < users; i++) {
			assertThat(this.api.issue(id, Tokens.user("user-" + UUID.randomUUID())).status()).isEqualTo(202);
		}
	}

	private Reply put(long id, int quantity) {
		return this.api.putCoupon(id, Tokens.admin("ops"), "Coupon " + id, quantity, this.opensAt, this.closesAt);
	}

	private int mysqlQuantity(long id) {
		return this.jdbc.queryForObject("SELECT quantity FROM coupons WHERE id = ?", Integer.class, id);
	}

	private long mysqlVersion(long id) {
		return this.jdbc.queryForObject("SELECT version FROM coupons WHERE id = ?", Long.class, id);
	}

	private int slotRows(long id) {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM coupon_slots WHERE coupon_id = ?", Integer.class, id);
	}

	private String redisQuantity(long id) {
		Object quantity = this.redis.opsForHash().get("{coupon:" + id + "}:meta", "quantity");
		return quantity == null ? null : quantity.toString();
	}

}
