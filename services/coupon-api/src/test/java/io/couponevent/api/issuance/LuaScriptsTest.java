package io.couponevent.api.issuance;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Properties;

import io.couponevent.api.coupon.Coupon;
import io.couponevent.api.coupon.IssuedRow;
import io.couponevent.api.issuance.Decision.Outcome;
import io.couponevent.common.entry.EntryGate;
import io.couponevent.testsupport.Harness;
import io.couponevent.testsupport.RequiresHarness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/** Every decision of the Lua scripts, against the real Redis Cluster of the harness. */
@RequiresHarness
class LuaScriptsTest {

	private static LettuceConnectionFactory factory;

	private static StringRedisTemplate redis;

	private static ReservationStore store;

	@BeforeAll
	static void connect() {
		factory = new LettuceConnectionFactory(new RedisClusterConfiguration(Harness.redisNodes()));
		factory.afterPropertiesSet();
		factory.start();
		redis = new StringRedisTemplate(factory);
		store = new ReservationStore(redis);
	}

	@AfterAll
	static void disconnect() {
		factory.destroy();
	}

	private static Coupon coupon(int quantity, Instant opensAt, Instant closesAt, boolean paused) {
		return new Coupon(Harness.uniqueCouponId(), "test", quantity, opensAt, closesAt, paused, 1);
	}

	private static Coupon openCoupon(int quantity) {
		Instant now = Instant.now();
		Coupon c = coupon(quantity, now.minusSeconds(60), now.plusSeconds(600), false);
		assertThat(store.upsertMeta(c, true)).isEqualTo(ReservationStore.MetaResult.CREATED);
		return c;
	}

	@Test
	void acceptsThenRefusesTheSameUser() {
		Coupon c = openCoupon(3);
		Decision first = store.reserve(c.id(), "alice");
		assertThat(first.outcome()).isEqualTo(Outcome.ACCEPTED);
		assertThat(first.slot()).isEqualTo(1);
		assertThat(first.remaining()).isEqualTo(2);
		assertThat(first.reservedAt()).isCloseTo(Instant.now(), within(5));
		assertThat(store.reserve(c.id(), "alice").outcome()).isEqualTo(Outcome.DUPLICATE);
		assertThat(store.issuedCount(c.id())).isEqualTo(1);
		assertThat(store.find(c.id(), "alice")).get().extracting(Reservation::slot).isEqualTo(1);
	}

	@Test
	void soldOutAfterQuantity() {
		Coupon c = openCoupon(2);
		assertThat(store.reserve(c.id(), "u1").slot()).isEqualTo(1);
		assertThat(store.reserve(c.id(), "u2").slot()).isEqualTo(2);
		assertThat(store.reserve(c.id(), "u3").outcome()).isEqualTo(Outcome.SOLD_OUT);
		assertThat(store.issuedCount(c.id())).isEqualTo(2);
	}

	@Test
	void notOpenYetAndClosed() {
		Instant now = Instant.now();
		Coupon later = coupon(5, now.plusSeconds(3600), now.plusSeconds(7200), false);
		store.upsertMeta(later, true);
		assertThat(store.reserve(later.id(), "u").outcome()).isEqualTo(Outcome.NOT_OPEN);
		Coupon over = coupon(5, now.minusSeconds(7200), now.minusSeconds(1), false);
		store.upsertMeta(over, true);
		assertThat(store.reserve(over.id(), "u").outcome()).isEqualTo(Outcome.CLOSED);
		assertThat(store.issuedCount(later.id()) + store.issuedCount(over.id())).isZero();
	}

	@Test
	void pausedThenResumed() {
		Instant now = Instant.now();
		Coupon c = coupon(5, now.minusSeconds(60), now.plusSeconds(600), true);
		store.upsertMeta(c, true);
		assertThat(store.reserve(c.id(), "u").outcome()).isEqualTo(Outcome.PAUSED);
		Coupon resumed = new Coupon(c.id(), c.name(), c.quantity(), c.opensAt(), c.closesAt(), false, 2);
		assertThat(store.upsertMeta(resumed, false)).isEqualTo(ReservationStore.MetaResult.UPDATED);
		assertThat(store.reserve(c.id(), "u").outcome()).isEqualTo(Outcome.ACCEPTED);
	}

	@Test
	void missingStateIsNeverFreshStock() {
		Coupon c = openCoupon(5);
		store.reserve(c.id(), "before-loss");
		redis.delete(new CouponKeys(c.id()).all());
		assertThat(store.reserve(c.id(), "after-loss").outcome()).isEqualTo(Outcome.STATE_MISSING);
		// A metadata write for an existing coupon must not recreate empty state either.
		assertThat(store.upsertMeta(c, false)).isEqualTo(ReservationStore.MetaResult.STATE_MISSING);
		assertThat(store.reserve(c.id(), "after-loss").outcome()).isEqualTo(Outcome.STATE_MISSING);
		assertThat(store.stateExists(c.id())).isFalse();
	}

	@Test
	void compensationReturnsStockAndSlot() {
		Coupon c = openCoupon(2);
		Decision a = store.reserve(c.id(), "a");
		Decision b = store.reserve(c.id(), "b");
		assertThat(store.reserve(c.id(), "c").outcome()).isEqualTo(Outcome.SOLD_OUT);
		// A wrong slot releases nothing (it is not this user's reservation).
		assertThat(store.release(c.id(), new Reservation("a", b.slot(), a.reservedAt()), true)).isFalse();
		assertThat(store.release(c.id(), of("a", a), true)).isTrue();
		assertThat(store.release(c.id(), of("a", a), true)).isFalse();
		assertThat(store.issuedCount(c.id())).isEqualTo(1);
		Decision again = store.reserve(c.id(), "c");
		assertThat(again.outcome()).isEqualTo(Outcome.ACCEPTED);
		assertThat(again.slot()).as("the released slot is reused first").isEqualTo(a.slot());
		assertThat(store.reserve(c.id(), "d").outcome()).isEqualTo(Outcome.SOLD_OUT);
	}

	@Test
	void restoreRebuildsFromMysqlRowsOnlyWhenMissing() {
		Coupon c = openCoupon(5);
		Instant t = Instant.now().truncatedTo(ChronoUnit.MILLIS);
		List<IssuedRow> rows = List.of(new IssuedRow("x", 1, t, t), new IssuedRow("y", 3, t, t));
		assertThat(store.restore(c, rows)).as("state exists: no-op").isFalse();
		redis.delete(new CouponKeys(c.id()).all());
		assertThat(store.restore(c, rows)).isTrue();
		assertThat(store.issuedCount(c.id())).isEqualTo(2);
		assertThat(store.reserve(c.id(), "x").outcome()).isEqualTo(Outcome.DUPLICATE);
		assertThat(store.reserve(c.id(), "z").slot()).as("gap in the slots is reused").isEqualTo(2);
		assertThat(store.reserve(c.id(), "w").slot()).isEqualTo(4);
		assertThat(store.reserve(c.id(), "v").slot()).isEqualTo(5);
		assertThat(store.reserve(c.id(), "u").outcome()).isEqualTo(Outcome.SOLD_OUT);
	}

	/**
	 * Issue #37 item 17: a rebuild of a big coupon is sent in bounded script calls, not
	 * as one EVAL of every row (which, for a million rows, outlasts Lua's time limit and
	 * blocks that Redis node), and the state it leaves is the same.
	 */
	@Test
	void aBigRestoreIsSentInChunks() {
		int rows = 2 * ReservationStore.RESTORE_CHUNK + 500;
		Coupon c = openCoupon(rows + 10);
		Instant t = Instant.now().truncatedTo(ChronoUnit.MILLIS);
		List<IssuedRow> issued = new java.util.ArrayList<>();
		// Every slot but 7 and 100 used, up to rows + 2.
		for (int slot = 1, user = 0; user < rows; slot++) {
			if (slot != 7 && slot != 100) {
				issued.add(new IssuedRow("user-" + user++, slot, t, t));
			}
		}
		redis.delete(new CouponKeys(c.id()).all());
		long before = scriptCalls(c.id());
		assertThat(store.restore(c, issued)).isTrue();
		assertThat(scriptCalls(c.id()) - before).as("script calls of the rebuild").isGreaterThanOrEqualTo(3);
		assertThat(store.issuedCount(c.id())).isEqualTo(rows);
		assertThat(store.lostSlots(c.id())).isZero();
		assertThat(store.find(c.id(), "user-" + (rows - 1))).get().extracting(Reservation::slot).isEqualTo(rows + 2);
		assertThat(store.reserve(c.id(), "user-0").outcome()).isEqualTo(Outcome.DUPLICATE);
		assertThat(store.reserve(c.id(), "new-1").slot()).as("the gaps first").isEqualTo(7);
		assertThat(store.reserve(c.id(), "new-2").slot()).isEqualTo(100);
		assertThat(store.reserve(c.id(), "new-3").slot()).isEqualTo(rows + 3);
	}

	/**
	 * A rebuild overtaken by another (its instance lost the lease midway) adds nothing
	 * more: no row or free slot twice.
	 */
	@Test
	void anOvertakenRebuildAddsNothing() {
		Coupon c = openCoupon(5);
		Instant t = Instant.now().truncatedTo(ChronoUnit.MILLIS);
		List<IssuedRow> rows = List.of(new IssuedRow("x", 1, t, t), new IssuedRow("y", 3, t, t));
		redis.delete(new CouponKeys(c.id()).all());
		String first = store.beginRestore(c.id());
		assertThat(store.restoreChunk(c.id(), first, "free", new java.util.ArrayList<>(List.of("2")))).isTrue();
		assertThat(store.restore(c, rows)).as("the second rebuild").isTrue();
		assertThat(store.restoreChunk(c.id(), first, "free", new java.util.ArrayList<>(List.of("2")))).isFalse();
		assertThat(redis.opsForList().size(new CouponKeys(c.id()).free())).isEqualTo(1);
		assertThat(store.lostSlots(c.id())).isZero();
		assertThat(store.beginRestore(c.id())).as("the state exists").isNull();
	}

	/** EVAL and EVALSHA calls served by the node that owns the coupon's keys. */
	private static long scriptCalls(long couponId) {
		RedisClusterConnection cluster = factory.getClusterConnection();
		try {
			RedisClusterNode owner = cluster.clusterGetNodeForKey(new CouponKeys(couponId).meta().getBytes());
			Properties stats = cluster.serverCommands().info(owner, "commandstats");
			long calls = 0;
			for (String command : List.of("cmdstat_eval", "cmdstat_evalsha")) {
				String line = stats.getProperty(command);
				if (line != null) {
					calls += Long.parseLong(line.replaceAll("^calls=(\\d+),.*$", "$1"));
				}
			}
			return calls;
		}
		finally {
			cluster.close();
		}
	}

	@Test
	void adoptTakesTheSlotOffTheFreeList() {
		Coupon c = openCoupon(2);
		Decision a = store.reserve(c.id(), "a");
		store.release(c.id(), of("a", a), true);
		Instant t = Instant.now();
		assertThat(store.adopt(c.id(), new IssuedRow("a", a.slot(), t, t))).isTrue();
		assertThat(store.adopt(c.id(), new IssuedRow("a", a.slot(), t, t))).isFalse();
		assertThat(store.reserve(c.id(), "b").slot()).isEqualTo(2);
		assertThat(store.reserve(c.id(), "c").outcome()).isEqualTo(Outcome.SOLD_OUT);
	}

	@Test
	void heldSlotStaysOutOfCirculationUntilReleased() {
		Coupon c = openCoupon(2);
		Decision a = store.reserve(c.id(), "a");
		store.reserve(c.id(), "b");
		assertThat(store.hold(c.id(), new Reservation("a", b(a), a.reservedAt()))).as("wrong slot: not a's reservation")
			.isFalse();
		assertThat(store.hold(c.id(), of("a", a))).isTrue();
		assertThat(store.find(c.id(), "a")).as("the user may retry").isEmpty();
		assertThat(store.issuedCount(c.id())).as("the unit stays taken").isEqualTo(2);
		Reservation placeholder = store.all(c.id()).stream().filter(Reservation::held).findFirst().orElseThrow();
		assertThat(placeholder.slot()).isEqualTo(a.slot());
		assertThat(placeholder.userId()).isEqualTo(Reservation.heldField(a.slot(), "a"));
		assertThat(placeholder.heldFor()).isEqualTo("a");
		assertThat(store.lostSlots(c.id())).isZero();
		// Nothing free, but a held unit may come back: "try again", not "sold out".
		assertThat(store.reserve(c.id(), "c").outcome()).isEqualTo(Outcome.STOCK_HELD);
		assertThat(store.reserve(c.id(), "a").outcome()).isEqualTo(Outcome.STOCK_HELD);
		// The send did not land: the reconciler puts the slot back, and it is handed out
		// again.
		assertThat(store.release(c.id(), placeholder, true)).isTrue();
		Decision again = store.reserve(c.id(), "c");
		assertThat(again.outcome()).isEqualTo(Outcome.ACCEPTED);
		assertThat(again.slot()).isEqualTo(a.slot());
		assertThat(store.reserve(c.id(), "d").outcome()).as("no held unit left").isEqualTo(Outcome.SOLD_OUT);
	}

	@Test
	void droppedSlotIsReportedLostUntilItsRowIsAdopted() {
		Coupon c = openCoupon(3);
		Decision a = store.reserve(c.id(), "a");
		store.hold(c.id(), of("a", a));
		// The send landed (MySQL uses the slot): the placeholder goes, the slot is not
		// reused...
		assertThat(store.release(c.id(), heldOf("a", a), false)).isTrue();
		assertThat(store.lostSlots(c.id())).isEqualTo(1);
		// ...and the landed row is adopted, which accounts for the slot again.
		Instant t = Instant.now();
		assertThat(store.adopt(c.id(), new IssuedRow("a", a.slot(), t, t))).isTrue();
		assertThat(store.lostSlots(c.id())).isZero();
		assertThat(store.reserve(c.id(), "b").slot()).isEqualTo(2);
	}

	/**
	 * Issue 37, item 2: a failover that lost writes rolls the slot counter back below
	 * slots already in Kafka; adopting such a row raises it, so the slot is not minted
	 * again.
	 */
	@Test
	void adoptRaisesTheSlotCounterPastTheAdoptedSlot() {
		Coupon c = openCoupon(10);
		store.reserve(c.id(), "a");
		store.reserve(c.id(), "b");
		Instant t = Instant.now();
		// "c" reserved slot 3, its record reached MySQL, and the failover lost it.
		assertThat(store.adopt(c.id(), new IssuedRow("c", 3, t, t))).isTrue();
		assertThat(store.mintedSlots(c.id())).isEqualTo(3);
		assertThat(store.lostSlots(c.id())).isZero();
		assertThat(store.reserve(c.id(), "d").slot()).as("slot 3 is not minted again").isEqualTo(4);
	}

	/**
	 * Issue 37, item 2: a slot counter behind the entries it minted is reported (as a
	 * negative count), not clamped to 0, so the reconciler compares with MySQL.
	 */
	@Test
	void aSlotCounterBehindItsEntriesIsReported() {
		Coupon c = openCoupon(10);
		store.reserve(c.id(), "a");
		store.reserve(c.id(), "b");
		store.reserve(c.id(), "c");
		redis.opsForValue().set(new CouponKeys(c.id()).next(), "1");
		assertThat(store.lostSlots(c.id())).isEqualTo(-2);
	}

	/**
	 * Issue 37, item 15: a coupon new in MySQL (the register job's {@code fresh} write)
	 * starts with empty state, whatever an earlier event left in Redis under its id.
	 */
	@Test
	void aCouponNewInMysqlStartsWithoutLeftoverState() {
		Coupon earlier = openCoupon(5);
		store.reserve(earlier.id(), "a");
		store.reserve(earlier.id(), "b");
		store.reserve(earlier.id(), "c");
		Coupon again = new Coupon(earlier.id(), "again", 2, earlier.opensAt(), earlier.closesAt(), false, 1);
		assertThat(store.upsertMeta(again, true)).isEqualTo(ReservationStore.MetaResult.CREATED);
		assertThat(store.issuedCount(again.id())).isZero();
		assertThat(store.mintedSlots(again.id())).isZero();
		assertThat(store.reserve(again.id(), "a").slot()).isEqualTo(1);
	}

	/**
	 * Issue 37, item 15: two events sharing one Redis, each under its key prefix, do not
	 * share a coupon's stock or its gate, though the coupon ids are the same.
	 */
	@Test
	void twoEventsSharingARedisKeepTheirOwnStock() {
		ReservationStore first = new ReservationStore(redis, 1, "event-a:");
		ReservationStore second = new ReservationStore(redis, 1, "event-b:");
		Instant now = Instant.now();
		Coupon c = coupon(1, now.minusSeconds(60), now.plusSeconds(600), false);
		assertThat(first.upsertMeta(c, true)).isEqualTo(ReservationStore.MetaResult.CREATED);
		assertThat(second.upsertMeta(c, true)).isEqualTo(ReservationStore.MetaResult.CREATED);
		assertThat(first.reserve(c.id(), "u1").outcome()).isEqualTo(Outcome.ACCEPTED);
		assertThat(second.reserve(c.id(), "u2").outcome()).as("the other event's unit").isEqualTo(Outcome.ACCEPTED);
		assertThat(store.stateExists(c.id())).as("nothing under the unprefixed keys").isFalse();
		Coupon d = coupon(5, now.minusSeconds(60), now.plusSeconds(600), false);
		first.upsertMeta(d, true);
		second.upsertMeta(d, true);
		redis.opsForValue().set(EntryGate.key("event-a:", d.id()), "1", Duration.ofSeconds(30));
		assertThat(first.reserve(d.id(), "u1").outcome()).isEqualTo(Outcome.ENTRY_REQUIRED);
		assertThat(second.reserve(d.id(), "u1").outcome()).as("the other event's gate is off")
			.isEqualTo(Outcome.ACCEPTED);
	}

	@Test
	void aUnitOutOfTheHashAndTheFreeListIsHeldNotSoldOut() {
		Coupon c = openCoupon(2);
		Decision a = store.reserve(c.id(), "a");
		store.reserve(c.id(), "b");
		store.hold(c.id(), of("a", a));
		// The held send landed: the slot leaves the hash without going back to the free
		// list, until the reconciler adopts the row. Every slot number is minted, one
		// unit is unaccounted for: it comes back, so "try again", not "sold out".
		assertThat(store.release(c.id(), heldOf("a", a), false)).isTrue();
		assertThat(store.issuedCount(c.id())).isEqualTo(1);
		assertThat(store.reserve(c.id(), "c").outcome()).isEqualTo(Outcome.STOCK_HELD);
		Instant t = Instant.now();
		assertThat(store.adopt(c.id(), new IssuedRow("a", a.slot(), t, t))).isTrue();
		assertThat(store.reserve(c.id(), "c").outcome()).isEqualTo(Outcome.SOLD_OUT);
	}

	@Test
	void aCallPastItsDeadlineReservesNothing() {
		Coupon c = openCoupon(3);
		long past = System.currentTimeMillis() - 1_000;
		assertThat(store.reserve(c.id(), "late", past, false).outcome()).isEqualTo(Outcome.EXPIRED);
		assertThat(store.find(c.id(), "late")).isEmpty();
		assertThat(store.issuedCount(c.id())).isZero();
		long future = System.currentTimeMillis() + 10_000;
		assertThat(store.reserve(c.id(), "late", future, false).outcome()).isEqualTo(Outcome.ACCEPTED);
	}

	@Test
	void theGateAdmitsOnlyRequestsWithAnEntryToken() {
		Coupon c = openCoupon(2);
		long deadline = System.currentTimeMillis() + 10_000;
		redis.opsForValue().set(EntryGate.key(c.id()), "1", Duration.ofSeconds(30));
		assertThat(store.reserve(c.id(), "walk-in", deadline, false).outcome()).isEqualTo(Outcome.ENTRY_REQUIRED);
		assertThat(store.find(c.id(), "walk-in")).isEmpty();
		assertThat(store.reserve(c.id(), "admitted", deadline, true).outcome()).isEqualTo(Outcome.ACCEPTED);
		// Final answers do not need a token: the holder learns they hold it.
		assertThat(store.reserve(c.id(), "admitted", deadline, false).outcome()).isEqualTo(Outcome.DUPLICATE);
		redis.delete(EntryGate.key(c.id()));
		assertThat(store.reserve(c.id(), "walk-in", deadline, false).outcome()).isEqualTo(Outcome.ACCEPTED);
		redis.opsForValue().set(EntryGate.key(c.id()), "1", Duration.ofSeconds(30));
		assertThat(store.reserve(c.id(), "late-comer", deadline, false).outcome()).as("sold out is told to everyone")
			.isEqualTo(Outcome.SOLD_OUT);
		redis.delete(EntryGate.key(c.id()));
	}

	private static int b(Decision a) {
		return a.slot() + 1;
	}

	/** The reservation a decision made, as the hot path's compensation knows it. */
	private static Reservation of(String user, Decision d) {
		return new Reservation(user, d.slot(), d.reservedAt());
	}

	/** The placeholder a hold of {@code d} left. */
	private static Reservation heldOf(String user, Decision d) {
		return new Reservation(Reservation.heldField(d.slot(), user), d.slot(), d.reservedAt());
	}

	@Test
	void quantityCannotDropBelowHandedOutSlots() {
		Coupon c = openCoupon(3);
		store.reserve(c.id(), "a");
		store.reserve(c.id(), "b");
		Coupon smaller = new Coupon(c.id(), c.name(), 1, c.opensAt(), c.closesAt(), false, 2);
		assertThat(store.upsertMeta(smaller, false)).isEqualTo(ReservationStore.MetaResult.QUANTITY_BELOW_ISSUED);
		Coupon larger = new Coupon(c.id(), c.name(), 4, c.opensAt(), c.closesAt(), false, 3);
		assertThat(store.upsertMeta(larger, false)).isEqualTo(ReservationStore.MetaResult.UPDATED);
		assertThat(store.reserve(c.id(), "c").remaining()).isEqualTo(1);
	}

	/**
	 * Issue #37 item 4: the reconciler reads a reservation, judges it stale (no row, no
	 * lag), then releases it; in between, the user asks again, is told 409 "you hold it"
	 * and the reservation is sent again. The release must then do nothing: it would hand
	 * the slot to another user while the re-sent record takes it in MySQL (one of the two
	 * 202s lost), or leave the user told "you hold it" with nothing.
	 */
	@Test
	void aReleaseReadBeforeAResendDoesNothing() {
		Coupon c = openCoupon(1);
		store.reserve(c.id(), "u");
		Reservation seen = store.all(c.id()).getFirst();
		assertThat(store.reserve(c.id(), "u").outcome()).isEqualTo(Outcome.DUPLICATE);
		assertThat(store.release(c.id(), seen, true)).as("the resend came between").isFalse();
		Reservation resent = store.find(c.id(), "u").orElseThrow();
		assertThat(resent.slot()).isEqualTo(seen.slot());
		assertThat(resent.reservedAt()).as("the record keeps its time").isEqualTo(seen.reservedAt());
		assertThat(resent.resentAt()).as("staleness counts from the re-send").isNotNull();
		assertThat(resent.lastSent()).isAfterOrEqualTo(seen.reservedAt());
		assertThat(store.reserve(c.id(), "v").outcome()).isEqualTo(Outcome.SOLD_OUT);
		// Read again (a later pass, once that is stale too), it can be released.
		assertThat(store.release(c.id(), resent, true)).isTrue();
		assertThat(store.reserve(c.id(), "v").slot()).isEqualTo(seen.slot());
	}

	/**
	 * The same for the hot path's own compensation: a send that failed, while a second
	 * request of the same user was answered 409 and re-sent the reservation.
	 */
	@Test
	void aCompensationAfterAResendDoesNothing() {
		Coupon c = openCoupon(1);
		Decision a = store.reserve(c.id(), "u");
		assertThat(store.reserve(c.id(), "u").outcome()).isEqualTo(Outcome.DUPLICATE);
		assertThat(store.release(c.id(), of("u", a), true)).isFalse();
		assertThat(store.hold(c.id(), of("u", a))).isFalse();
		assertThat(store.find(c.id(), "u")).isPresent();
		assertThat(store.reserve(c.id(), "v").outcome()).isEqualTo(Outcome.SOLD_OUT);
	}

	/**
	 * Two admin changes whose Redis writes arrive out of order (a raise written after
	 * MySQL's commit, a later lowering written before its own): the older version must
	 * not undo the newer, or Redis sells slots MySQL no longer has.
	 */
	@Test
	void anOlderVersionNeverOverwritesANewerOne() {
		Coupon c = openCoupon(3);
		Coupon lowered = new Coupon(c.id(), c.name(), 2, c.opensAt(), c.closesAt(), false, 3);
		assertThat(store.upsertMeta(lowered, false)).isEqualTo(ReservationStore.MetaResult.UPDATED);
		Coupon staleRaise = new Coupon(c.id(), c.name(), 10, c.opensAt(), c.closesAt(), false, 2);
		assertThat(store.upsertMeta(staleRaise, false)).isEqualTo(ReservationStore.MetaResult.UPDATED);
		assertThat(redis.opsForHash().get(new CouponKeys(c.id()).meta(), "quantity")).isEqualTo("2");
		assertThat(redis.opsForHash().get(new CouponKeys(c.id()).meta(), "version")).isEqualTo("3");
		// A coupon new in MySQL starts over, whatever version Redis had left (issue 37,
		// item 15: and whatever state).
		Coupon recreated = new Coupon(c.id(), c.name(), 7, c.opensAt(), c.closesAt(), false, 1);
		assertThat(store.upsertMeta(recreated, true)).isEqualTo(ReservationStore.MetaResult.CREATED);
		assertThat(redis.opsForHash().get(new CouponKeys(c.id()).meta(), "quantity")).isEqualTo("7");
	}

	private static org.assertj.core.data.TemporalUnitOffset within(long seconds) {
		return new org.assertj.core.data.TemporalUnitWithinOffset(seconds, ChronoUnit.SECONDS);
	}

}
