package io.couponevent.consumer.persist;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Token bucket that caps row inserts per second so a backlog drains at a pace MySQL can
 * take. Holds at most one second of unused permits (a short burst after idling), and lets
 * one caller take more permits than are stored: the debt delays the next caller instead,
 * so a batch larger than the rate is never refused. Shared by all listener threads of the
 * pod.
 */
public final class WriteRateLimiter {

	/** Sleeps for a number of nanoseconds; replaced by a fake in tests. */
	@FunctionalInterface
	public interface Sleeper {

		void sleepNanos(long nanos) throws InterruptedException;

	}

	private static final long NANOS_PER_SECOND = TimeUnit.SECONDS.toNanos(1);

	private final double permitsPerSecond;

	private final double maxStored;

	private final LongSupplier nanoClock;

	private final Sleeper sleeper;

	private double stored;

	private long nextFreeNanos;

	public WriteRateLimiter(double permitsPerSecond, LongSupplier nanoClock, Sleeper sleeper) {
		if (!(permitsPerSecond > 0)) {
			throw new IllegalArgumentException("permitsPerSecond must be positive, was " + permitsPerSecond);
		}
		this.permitsPerSecond = permitsPerSecond;
		this.maxStored = permitsPerSecond;
		this.nanoClock = nanoClock;
		this.sleeper = sleeper;
		this.nextFreeNanos = nanoClock.getAsLong();
	}

	public static WriteRateLimiter system(double permitsPerSecond) {
		return new WriteRateLimiter(permitsPerSecond, System::nanoTime, TimeUnit.NANOSECONDS::sleep);
	}

	/** Blocks until {@code permits} may be used; returns the nanoseconds it waited. */
	public long acquire(int permits) throws InterruptedException {
		long waitNanos = reserve(permits);
		if (waitNanos > 0) {
			sleeper.sleepNanos(waitNanos);
		}
		return waitNanos;
	}

	/**
	 * Books {@code permits} and returns how long the caller must wait before using them.
	 */
	synchronized long reserve(int permits) {
		if (permits < 0) {
			throw new IllegalArgumentException("permits must not be negative");
		}
		long now = nanoClock.getAsLong();
		if (now > nextFreeNanos) {
			// Refill for the idle time since the bucket was last due.
			stored = Math.min(maxStored, stored + (now - nextFreeNanos) * permitsPerSecond / NANOS_PER_SECOND);
			nextFreeNanos = now;
		}
		long waitNanos = nextFreeNanos - now;
		double fromStore = Math.min(permits, stored);
		double owed = permits - fromStore;
		stored -= fromStore;
		nextFreeNanos += (long) Math.ceil(owed * NANOS_PER_SECOND / permitsPerSecond);
		return waitNanos;
	}

}
