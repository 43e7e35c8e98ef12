package io.couponevent.consumer.persist;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import io.couponevent.common.IssuanceEvent;
import io.couponevent.common.jdbc.SqlDateTime;
import io.couponevent.consumer.support.IntegrationTest;
import io.couponevent.testsupport.Database;
import io.couponevent.testsupport.Harness;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/** Batch insert semantics against the real MariaDB/MySQL schema. */
class IssuancePersisterTest extends IntegrationTest {

	@Autowired
	IssuancePersister persister;

	@Autowired
	JdbcTemplate jdbc;

	@Autowired
	DataSource dataSource;

	private Database db() {
		return Database.of(dataSource);
	}

	private static IssuanceEvent event(long coupon, String user, int slot) {
		return new IssuanceEvent(UUID.randomUUID(), coupon, user, slot, Instant.now().truncatedTo(ChronoUnit.MILLIS));
	}

	@Test
	void freshBatchIsInsertedWhole() {
		long coupon = Harness.uniqueCouponId();
		db().createCoupon(coupon, 10);
		List<IssuanceEvent> events = List.of(event(coupon, "a", 1), event(coupon, "b", 2), event(coupon, "c", 3));

		assertThat(persister.persist(events)).extracting(IssuancePersisterTest::describe)
			.containsExactly("inserted", "inserted", "inserted");
		assertThat(db().rows(coupon)).isEqualTo(3);
		assertThat(db().holderOfSlot(coupon, 2)).isEqualTo("b");
	}

	@Test
	void batchWithDuplicatesInsertsEachReservationOnce() {
		long coupon = Harness.uniqueCouponId();
		db().createCoupon(coupon, 10);
		IssuanceEvent a = event(coupon, "a", 1);
		IssuanceEvent b = event(coupon, "b", 2);
		IssuanceEvent c = event(coupon, "c", 3);

		List<Outcome> first = persister.persist(List.of(a, b, a, c));
		assertThat(first).extracting(o -> o.getClass().getSimpleName())
			.containsExactly("Inserted", "Inserted", "Duplicate", "Inserted");
		assertThat(db().rows(coupon)).isEqualTo(3);

		// The same batch delivered again, plus one new event: only the new one is
		// written.
		IssuanceEvent d = event(coupon, "d", 4);
		List<Outcome> again = persister.persist(List.of(a, b, c, d));
		assertThat(again).extracting(o -> o.getClass().getSimpleName())
			.containsExactly("Duplicate", "Duplicate", "Duplicate", "Inserted");
		assertThat(db().rows(coupon)).isEqualTo(4);

		Instant stored = jdbc.queryForObject(
				"SELECT reserved_at FROM issued_coupons WHERE coupon_id = ? AND user_id = 'a'",
				(rs, n) -> SqlDateTime.read(rs, "reserved_at"), coupon);
		assertThat(stored).isEqualTo(a.reservedAt());
	}

	@Test
	void conflictsAreRejectedWithoutFailingTheRestOfTheBatch() {
		long coupon = Harness.uniqueCouponId();
		long missing = Harness.uniqueCouponId();
		db().createCoupon(coupon, 3);
		persister.persist(List.of(event(coupon, "owner", 1)));

		List<Outcome> outcomes = persister.persist(List.of(event(coupon, "thief", 1), // slot
																						// 1
																						// is
																						// held
																						// by
																						// another
																						// user
				event(coupon, "owner", 2), // the user already holds slot 1: a duplicate,
											// not a conflict
				event(coupon, "good", 2), event(coupon, "greedy", 4), // beyond the
																		// quantity
				event(missing, "nobody", 1), // no such coupon
				event(coupon, "good2", 3)));

		assertThat(outcomes).extracting(IssuancePersisterTest::describe)
			.containsExactly("rejected:slot_conflict", "duplicate", "inserted", "rejected:slot_conflict",
					"rejected:unknown_coupon", "inserted");
		assertThat(db().rows(coupon)).isEqualTo(3);
		assertThat(db().holderOfSlot(coupon, 1)).isEqualTo("owner");
		assertThat(db().holderOfSlot(coupon, 2)).isEqualTo("good");
		assertThat(jdbc.queryForObject("SELECT slot FROM issued_coupons WHERE coupon_id = ? AND user_id = 'owner'",
				Integer.class, coupon))
			.as("the owner keeps the first slot")
			.isEqualTo(1);
		assertThat(db().rows(missing)).isZero();
	}

	private static String describe(Outcome outcome) {
		return switch (outcome) {
			case Outcome.Inserted i -> "inserted";
			case Outcome.Duplicate d -> "duplicate";
			case Outcome.Rejected r -> "rejected:" + r.cause().reason().tag();
		};
	}

}
