package io.couponevent.waitingroom.room;

import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PollAfterTest {

	private static final long W = 2_000;

	/** A user whose hash falls at the start of every spread (at most 1.5 s wide). */
	private static final String USER = userAtTheStartOfTheSpread();

	private static String userAtTheStartOfTheSpread() {
		for (int i = 0;; i++) {
			String user = "user-" + i;
			if (Math.floorMod(user.hashCode(), WaitingRoom.MAX_STEP_SPREAD_MS) == 0) {
				return user;
			}
		}
	}

	@Test
	void aUserLetInAtTheNextStepPollsJustAfterIt() {
		assertThat(WaitingRoom.pollAfter(1, W, USER)).isEqualTo(101);
		assertThat(WaitingRoom.pollAfter(1_500, W, USER)).isEqualTo(1_600);
		assertThat(WaitingRoom.pollAfter(2_000, W, USER)).isEqualTo(2_100);
	}

	@Test
	void aStepsUsersAreSpreadOverThreeQuartersOfTheSubWindow() {
		Set<Long> at = new HashSet<>();
		for (int i = 0; i < 2_000; i++) {
			long after = WaitingRoom.pollAfter(1_000, W, "user-" + i);
			assertThat(after).isBetween(1_100L, 1_100L + WaitingRoom.MAX_STEP_SPREAD_MS - 1);
			at.add(after);
		}
		assertThat(at).hasSizeGreaterThan(1_000);
		// a short sub-window spreads over three quarters of it
		for (int i = 0; i < 200; i++) {
			assertThat(WaitingRoom.pollAfter(100, 200, "user-" + i)).isBetween(200L, 349L);
		}
		// a long one over 1.5 s at most
		for (int i = 0; i < 200; i++) {
			assertThat(WaitingRoom.pollAfter(1_000, 6_000, "user-" + i)).isBetween(1_100L, 2_599L);
		}
	}

	@Test
	void usersWhoShareAnEstimateAreSpread() {
		// A step's worth of users share an estimate; without a spread they would all poll
		// at once. Each polls after the next step and before their own.
		Set<Long> near = new HashSet<>();
		Set<Long> far = new HashSet<>();
		for (int i = 0; i < 2_000; i++) {
			String user = "user-" + i;
			// the next step in 0.5 s, the user's a sub-window later
			long after = WaitingRoom.pollAfter(2_500, W, user);
			assertThat(after).isBetween(600L, 2_499L);
			near.add(after);
			// 20 s back: a quarter earlier than halfway at most
			after = WaitingRoom.pollAfter(20_000, W, user);
			assertThat(after).isBetween(10_000L - WaitingRoom.MAX_STEP_SPREAD_MS + 1, 10_000L);
			far.add(after);
		}
		assertThat(near).hasSizeGreaterThan(500);
		assertThat(far).hasSizeGreaterThan(1_000);
	}

	@Test
	void nobodyPollsBeforeTheNextStep() {
		// 3.5 s: the next step in 1.5 s, the user's in 3.5 s; half the wait is 1.75 s
		assertThat(WaitingRoom.pollAfter(3_500, W, USER)).isEqualTo(1_750);
		// 2.2 s: the next step in 0.2 s; half the wait (1.1 s) is later
		assertThat(WaitingRoom.pollAfter(2_200, W, USER)).isEqualTo(1_100);
		// 5.9 s with a 6 s sub-window: the next step in 5.9 s, past half the wait
		assertThat(WaitingRoom.pollAfter(5_900, 6_000, USER)).isEqualTo(6_000);
		// 7 s with a 6 s sub-window: the next step in 1 s, the user's in 7 s
		assertThat(WaitingRoom.pollAfter(7_000, 6_000, USER)).isEqualTo(3_500);
		// 6.01 s: the next step in 10 ms, then one more; half the wait is later
		assertThat(WaitingRoom.pollAfter(6_010, 6_000, USER)).isEqualTo(3_005);
		// 3.9 s with 2 s steps: the next step in 1.9 s, after half the wait
		assertThat(WaitingRoom.pollAfter(3_900, W, USER)).isEqualTo(2_000);
	}

	@Test
	void furtherBackPollsHalfwayThroughTheWaitAtMostEveryThirtySeconds() {
		assertThat(WaitingRoom.pollAfter(20_000, W, USER)).isEqualTo(10_000);
		assertThat(WaitingRoom.pollAfter(59_000, W, USER)).isEqualTo(29_500);
		assertThat(WaitingRoom.pollAfter(600_000, W, USER)).isEqualTo(WaitingRoom.MAX_POLL_AFTER_MS);
	}

	@Test
	void aQueueOfAnyLengthIsFollowedInLogarithmicallyManyPolls() {
		for (String user : new String[] { USER, "user-1", "user-2", "user-3" }) {
			for (long eta : new long[] { 10_000, 120_000, 3_600_000 }) {
				long left = eta;
				long polls = 0;
				while (left > 0) {
					left -= WaitingRoom.pollAfter(left, W, user);
					polls++;
				}
				assertThat(polls).as("%s's polls over a wait of %d ms", user, eta)
					.isLessThanOrEqualTo(eta / 30_000 + 8);
			}
		}
	}

}
