package io.couponevent.api.reconcile;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.couponevent.api.coupon.IssuedRow;
import io.couponevent.api.issuance.Reservation;
import io.couponevent.api.reconcile.Repairs.Adopt;
import io.couponevent.api.reconcile.Repairs.Release;
import io.couponevent.api.reconcile.Repairs.Repoint;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reconciler's four repairs, one case each, on the decision alone: lost state
 * rebuilt, a stale reservation released, a held slot released, an unknown row adopted
 * (and the user repointed to it). The stores they act on are tested against the harness
 * ({@code LuaScriptsTest}, {@code OffsetBarrierTest}).
 */
class RepairsTest {

	private static final Instant BARRIER = Instant.parse("2026-12-01T10:00:00Z");

	private static final Duration STALE_AFTER = Duration.ofSeconds(30);

	private static final Instant STALE_BEFORE = BARRIER.minus(STALE_AFTER);

	private static Reservation reservation(String user, int slot, Instant sent) {
		return new Reservation(user, slot, sent);
	}

	private static IssuedRow row(String user, int slot) {
		return new IssuedRow(user, slot, STALE_BEFORE.minusSeconds(60), STALE_BEFORE.minusSeconds(59));
	}

	@Nested
	class LostStateIsRebuilt {

		private final Instant missingSince = BARRIER.minusSeconds(10);

		private final Duration grace = Duration.ofSeconds(3);

		@Test
		void onceEverySendInFlightWhenItWasLostIsBehindTheBarrier() {
			assertThat(Repairs.rebuildDue(this.missingSince.plus(this.grace), this.missingSince, this.grace)).isTrue();
			assertThat(Repairs.rebuildDue(BARRIER, this.missingSince, this.grace)).isTrue();
		}

		@Test
		void notWhileASendOfThatTimeMayStillLand() {
			Instant justBefore = this.missingSince.plus(this.grace).minusMillis(1);
			assertThat(Repairs.rebuildDue(justBefore, this.missingSince, this.grace)).isFalse();
		}

		@Test
		void notWhileTheConsumerHasNotBeenSeenToCatchUp() {
			assertThat(Repairs.rebuildDue(null, this.missingSince, this.grace)).isFalse();
		}

	}

	@Nested
	class StaleReservationIsReleased {

		@Test
		void whenItWasLastSentBeforeStaleAfterAndMysqlHasNoRow() {
			Reservation ghost = reservation("ghost", 3, STALE_BEFORE.minusMillis(1));
			assertThat(Repairs.plan(List.of(ghost), List.of(), STALE_BEFORE)).containsExactly(new Release(ghost, true));
		}

		@Test
		void notWhileItsRecordOrARetrysResendMayStillBeOnItsWay() {
			Reservation recent = reservation("recent", 3, STALE_BEFORE);
			Reservation resent = new Reservation("resent", 4, STALE_BEFORE.minusSeconds(60),
					STALE_BEFORE.plusSeconds(1));
			assertThat(Repairs.plan(List.of(recent, resent), List.of(), STALE_BEFORE)).isEmpty();
		}

		@Test
		void neverWhileTheConsumersProgressIsUnknown() {
			Reservation ghost = reservation("ghost", 3, STALE_BEFORE.minusSeconds(3600));
			Reservation held = reservation(Reservation.heldField(4, "user"), 4, STALE_BEFORE.minusSeconds(3600));
			assertThat(Repairs.plan(List.of(ghost, held), List.of(), null)).isEmpty();
		}

		@Test
		void whileMysqlAloneStillSettlesHeldSlotsRepointsAndAdoptions() {
			Reservation landed = reservation(Reservation.heldField(4, "user"), 4, BARRIER);
			Reservation retry = reservation("user", 5, BARRIER);
			IssuedRow row = row("user", 4);
			IssuedRow unknown = row("unknown", 6);
			assertThat(Repairs.plan(List.of(landed, retry), List.of(row, unknown), null)).containsExactly(
					new Release(landed, false), new Repairs.Repoint(retry, row, true), new Repairs.Adopt(unknown));
		}

		@Test
		void withoutReusingASlotNumberMysqlAlreadyHolds() {
			Reservation ghost = reservation("ghost", 1, STALE_BEFORE.minusSeconds(5));
			IssuedRow other = row("other", 1);
			assertThat(Repairs.plan(List.of(ghost, reservation("other", 1, STALE_BEFORE.minusSeconds(60))),
					List.of(other), STALE_BEFORE))
				.containsExactly(new Release(ghost, false));
		}

	}

	@Nested
	class HeldSlotIsReleased {

		@Test
		void whenTheCompensatedSendDidNotLand() {
			Reservation held = reservation(Reservation.heldField(7, "user"), 7, STALE_BEFORE.minusSeconds(5));
			assertThat(held.held()).isTrue();
			assertThat(Repairs.plan(List.of(held), List.of(), STALE_BEFORE)).containsExactly(new Release(held, true));
		}

		@Test
		void notBeforeItIsStaleWhileMysqlCannotTellYet() {
			Reservation held = reservation(Reservation.heldField(7, "user"), 7, BARRIER);
			assertThat(Repairs.plan(List.of(held), List.of(row("other", 3)), STALE_BEFORE))
				.containsExactly(new Adopt(row("other", 3)));
		}

		@Test
		void droppedWithoutFreeingTheSlotWhenTheSendLandedAfterAll() {
			Reservation held = reservation(Reservation.heldField(7, "late"), 7, STALE_BEFORE.minusSeconds(5));
			IssuedRow landed = row("late", 7);
			assertThat(Repairs.plan(List.of(held), List.of(landed), STALE_BEFORE))
				.containsExactly(new Release(held, false), new Adopt(landed));
		}

		@Test
		void atOnceWhenItsSlotIsInMysql() {
			// A stall's sends time out, then land once the broker is fenced: each unit is
			// sold, and counting it as held would answer the last users "try again".
			Reservation held = reservation(Reservation.heldField(7, "late"), 7, BARRIER);
			IssuedRow landed = row("late", 7);
			assertThat(Repairs.plan(List.of(held), List.of(landed), STALE_BEFORE))
				.containsExactly(new Release(held, false), new Adopt(landed));
		}

		@Test
		void atOnceAndFreedWhenItsUserHoldsAnotherSlot() {
			// The user's first send landed as their row; this retry's record is their
			// second, which the consumer counts as a duplicate and never writes.
			Reservation retry = reservation(Reservation.heldField(9, "user"), 9, BARRIER);
			IssuedRow first = row("user", 7);
			assertThat(Repairs.plan(List.of(retry), List.of(first), STALE_BEFORE))
				.containsExactly(new Release(retry, true), new Adopt(first));
		}

		@Test
		void aPlaceholderNamingNoUserWaitsUntilStale() {
			// written by an earlier version: "\u001Fheld:<slot>"
			Reservation legacy = reservation(Reservation.HELD_PREFIX + 9, 9, BARRIER);
			assertThat(legacy.held()).isTrue();
			assertThat(legacy.heldFor()).isNull();
			assertThat(Repairs.plan(List.of(legacy), List.of(), STALE_BEFORE)).isEmpty();
			Reservation stale = reservation(Reservation.HELD_PREFIX + 9, 9, STALE_BEFORE.minusSeconds(1));
			assertThat(Repairs.plan(List.of(stale), List.of(), STALE_BEFORE)).containsExactly(new Release(stale, true));
		}

	}

	@Nested
	class UnknownRowIsAdopted {

		@Test
		void whenRedisHasNoEntryForItsUser() {
			IssuedRow landed = row("late", 2);
			Reservation known = reservation("known", 1, STALE_BEFORE.minusSeconds(60));
			assertThat(Repairs.plan(List.of(known), List.of(row("known", 1), landed), STALE_BEFORE))
				.containsExactly(new Adopt(landed));
		}

		@Test
		void andAUserWhoseRetryHoldsAnotherSlotIsRepointedToMysqlsAtOnce() {
			Reservation retry = reservation("user", 5, BARRIER);
			IssuedRow landed = row("user", 2);
			assertThat(Repairs.plan(List.of(retry), List.of(landed), STALE_BEFORE))
				.containsExactly(new Repoint(retry, landed, true));
		}

		@Test
		void nothingWhenRedisAndMysqlAgree() {
			Reservation user = reservation("user", 2, STALE_BEFORE.minusSeconds(60));
			assertThat(Repairs.plan(List.of(user), List.of(row("user", 2)), STALE_BEFORE)).isEmpty();
		}

	}

}
