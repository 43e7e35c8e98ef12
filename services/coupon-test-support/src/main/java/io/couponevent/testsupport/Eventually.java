package io.couponevent.testsupport;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** Polls a condition until it holds or the time is up. */
public final class Eventually {

	private Eventually() {
	}

	/**
	 * The last value probed: the one that satisfied {@code done}, or the one seen when
	 * time ran out.
	 */
	public static <T> T await(Duration timeout, Supplier<T> probe, Predicate<T> done) throws InterruptedException {
		Instant deadline = Instant.now().plus(timeout);
		T value = probe.get();
		while (!done.test(value) && Instant.now().isBefore(deadline)) {
			Thread.sleep(100);
			value = probe.get();
		}
		return value;
	}

}
