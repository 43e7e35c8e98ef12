package io.couponevent.api.reconcile;

import java.time.Instant;
import java.util.UUID;

import io.couponevent.api.issuance.Decision;
import io.couponevent.api.issuance.Decision.Outcome;
import io.couponevent.api.issuance.Reservation;
import io.couponevent.api.issuance.ReservationStore;
import io.couponevent.api.support.Api.Reply;
import io.couponevent.api.support.ApiServerTest;
import io.couponevent.common.jdbc.SqlDateTime;
import io.couponevent.common.kafka.CouponKafkaProperties;
import io.couponevent.testsupport.Harness;
import io.couponevent.testsupport.Tokens;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.AutowireCapableBeanFactory;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue #42: a lost broker stalls every send until it is fenced. The sends that time out
 * meanwhile are held (they may still land), and they do land once the stall ends: their
 * units are sold. The reconciler settles each held slot at its next pass once MySQL shows
 * where its user's coupon went, not after {@code stale-after} (ten minutes here):
 * otherwise the event's last users are answered "try again" ({@code STOCK_HELD}) where
 * the answer is "sold out", or a unit a duplicate record held is never sold. The test
 * plays the consumer (rows written with JDBC, its group committed by hand) and calls the
 * reconciler's passes directly.
 */
@TestPropertySource(properties = { "coupon.reconciler.stale-after=10m", "coupon.reconciler.enabled=false",
		"coupon.kafka.consumer-group=reconciler-held-${random.uuid}" })
class HeldSlotSettlementTest extends ApiServerTest {

	@Autowired
	Reconciler reconciler;

	@Autowired
	ReservationStore store;

	@Autowired
	CouponKafkaProperties kafka;

	@Autowired
	JdbcTemplate jdbc;

	@Autowired
	ApplicationContext context;

	@Test
	void aLandedSendAndTheRetryBehindItAreSettledAtTheNextPass() throws Exception {
		long id = openCoupon(3);
		String user = "stalled-" + UUID.randomUUID();
		// The first send timed out and was held; so was the retry's, a slot further on.
		Decision first = held(id, user);
		Decision retry = held(id, user);
		assertThat(this.store.reserve(id, "other-" + UUID.randomUUID()).outcome()).isEqualTo(Outcome.ACCEPTED);
		assertThat(this.store.reserve(id, "late-" + UUID.randomUUID()).outcome()).as("nothing free, two held")
			.isEqualTo(Outcome.STOCK_HELD);
		// Both landed once the broker was fenced; the consumer wrote the first and
		// counted
		// the retry's as the user's second.
		row(id, user, first);
		settle();
		assertThat(this.store.heldCount(id)).isZero();
		assertSettled(id, user, first, retry);
	}

	@Test
	void aLandedSendKeepingTheCountsEqualIsSettledToo() throws Exception {
		long id = openCoupon(2);
		String user = "stalled-" + UUID.randomUUID();
		Decision landed = held(id, user);
		String other = "other-" + UUID.randomUUID();
		Decision sold = this.store.reserve(id, other);
		row(id, user, landed);
		row(id, other, sold);
		// Redis (a placeholder and a user) and MySQL (two rows) count the same.
		assertThat(this.store.issuedCount(id)).isEqualTo(2);
		settle();
		assertThat(this.store.heldCount(id)).isZero();
		assertThat(this.store.find(id, user)).isPresent();
		Reply last = this.api.issue(id, Tokens.user("last-" + UUID.randomUUID()));
		assertThat(last.status()).as("sold out, not try again: " + last.raw()).isEqualTo(410);
	}

	/**
	 * A broker lost: the consumer's offsets cannot be read, or the group is behind the
	 * barrier until the broker is back. The held slot's record landed meanwhile; MySQL
	 * alone tells where it went, so the slot is settled without waiting for the barrier
	 * (the CI run that kept 13 slots held for 32 s, and the last users of the event
	 * answered {@code 503 STOCK_HELD} for as long).
	 */
	@Test
	void aHeldSlotIsSettledWhileTheConsumersProgressIsUnknown() throws Exception {
		long id = openCoupon(2);
		String user = "stalled-" + UUID.randomUUID();
		Decision landed = held(id, user);
		Decision retry = held(id, user);
		row(id, user, landed);
		// A record the group has not committed: its lag is above 0, and a reconciler
		// that has not seen the group pass a barrier knows no settled moment.
		long elsewhere = openCoupon(1);
		Reply sent = this.api.issue(elsewhere, Tokens.user("elsewhere-" + UUID.randomUUID()));
		assertThat(sent.status()).as(sent.raw()).isEqualTo(202);
		Reconciler fresh = freshReconciler();
		assertThat(fresh.runOnce()).as("the reconciler's lease").isTrue();
		assertThat(this.store.heldCount(id)).as("held slots after a pass with no barrier").isZero();
		assertSettled(id, user, landed, retry);
	}

	/**
	 * The user holds the slot whose record landed, and the retry's unit is sold again:
	 * the next user gets the retry's slot.
	 */
	private void assertSettled(long id, String user, Decision landed, Decision retry) {
		assertThat(this.store.find(id, user)).as("the user holds the landed slot")
			.hasValueSatisfying((r) -> assertThat(r.slot()).isEqualTo(landed.slot()));
		String next = "next-" + UUID.randomUUID();
		Reply sold = this.api.issue(id, Tokens.user(next));
		assertThat(sold.status()).as("the retry's unit is sold again: " + sold.raw()).isEqualTo(202);
		assertThat(this.store.find(id, next).orElseThrow().slot()).as("the retry's slot, freed")
			.isEqualTo(retry.slot());
	}

	/** A reconciler as the process starts it: no barrier read yet. */
	private Reconciler freshReconciler() {
		AutowireCapableBeanFactory factory = this.context.getAutowireCapableBeanFactory();
		return (Reconciler) factory.autowire(Reconciler.class, AutowireCapableBeanFactory.AUTOWIRE_CONSTRUCTOR, false);
	}

	private long openCoupon(int quantity) {
		long id = Harness.uniqueCouponId();
		Instant now = Instant.now();
		Reply created = this.api.putCoupon(id, Tokens.admin("ops"), "Coupon " + id, quantity, now.minusSeconds(60),
				now.plusSeconds(3600));
		assertThat(created.status()).as(created.raw()).isEqualTo(201);
		return id;
	}

	/**
	 * A reservation whose send timed out: held, as the hot path's compensation holds it.
	 */
	private Decision held(long id, String user) {
		Decision d = this.store.reserve(id, user);
		assertThat(d.outcome()).isEqualTo(Outcome.ACCEPTED);
		assertThat(this.store.hold(id, new Reservation(user, d.slot(), d.reservedAt()))).isTrue();
		return d;
	}

	/** What coupon-consumer writes for a record of this reservation. */
	private void row(long id, String user, Decision d) {
		this.jdbc.update(
				"INSERT INTO issued_coupons (coupon_id, user_id, slot, event_id, reserved_at) VALUES (?, ?, ?, ?, ?)",
				id, user, d.slot(), UUID.randomUUID().toString(), SqlDateTime.of(d.reservedAt()));
	}

	/** The consumer has kept up; one reconciler pass. */
	private void settle() throws Exception {
		try (GroupAtTheEnd group = new GroupAtTheEnd(this.kafka)) {
			group.commit();
		}
		assertThat(this.reconciler.runOnce()).as("the reconciler's lease").isTrue();
	}

}
