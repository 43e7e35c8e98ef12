package io.couponevent.consumer.persist;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WriteRateLimiterTest {

	/** A clock that only moves when the limiter sleeps or the test advances it. */
	static final class FakeTime {

		long now = 1_000_000_000L;

		final List<Long> sleeps = new ArrayList<>();

		void sleep(long nanos) {
			sleeps.add(nanos);
			now += nanos;
		}

		void advanceMillis(long millis) {
			now += TimeUnit.MILLISECONDS.toNanos(millis);
		}

	}

	private final FakeTime time = new FakeTime();

	private WriteRateLimiter limiter(double rate) {
		return new WriteRateLimiter(rate, () -> time.now, time::sleep);
	}

	@Test
	void firstCallPassesThenTheDebtDelaysTheNext() throws InterruptedException {
		WriteRateLimiter limiter = limiter(100);
		assertThat(limiter.acquire(500)).isZero();
		// 500 permits at 100/s leave a 5 s debt for the next caller.
		assertThat(limiter.acquire(1)).isEqualTo(TimeUnit.SECONDS.toNanos(5));
		assertThat(time.sleeps).containsExactly(TimeUnit.SECONDS.toNanos(5));
	}

	@Test
	void sustainedThroughputMatchesTheRate() throws InterruptedException {
		WriteRateLimiter limiter = limiter(1_000);
		long start = time.now;
		for (int i = 0; i < 100; i++) {
			limiter.acquire(100);
		}
		// 10,000 permits at 1,000/s: 9.9 s of waiting (the last batch's cost is owed by
		// the next caller).
		assertThat(time.now - start).isEqualTo(TimeUnit.MILLISECONDS.toNanos(9_900));
	}

	@Test
	void idleTimeRefillsAtMostOneSecondOfPermits() throws InterruptedException {
		WriteRateLimiter limiter = limiter(10);
		limiter.acquire(10);
		time.advanceMillis(60_000);
		// A minute idle stores only 10 permits: 10 go at once, the 11th waits 100 ms.
		assertThat(limiter.acquire(10)).isZero();
		assertThat(limiter.acquire(1)).isZero();
		assertThat(limiter.acquire(1)).isEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
	}

	@Test
	void partialRefillIsUsedBeforeWaiting() throws InterruptedException {
		WriteRateLimiter limiter = limiter(10);
		limiter.acquire(1);
		time.advanceMillis(500);
		// 0.1 s of the half second paid the first permit's debt; 0.4 s stored 4 permits.
		assertThat(limiter.acquire(6)).isZero();
		assertThat(limiter.acquire(1)).isEqualTo(TimeUnit.MILLISECONDS.toNanos(200));
	}

	/**
	 * What the start-up check of {@code PersistenceConfig} relies on: each thread books
	 * one batch, waits, writes and books the next, so however long they run, no wait
	 * exceeds one batch per thread ({@code concurrency x max-poll-records / rate}).
	 */
	@Test
	void noWaitExceedsOneBatchPerThread() {
		int threads = 4;
		int batch = 500;
		WriteRateLimiter limiter = limiter(100);
		long[] nextCall = new long[threads];
		Arrays.fill(nextCall, time.now);
		long longest = 0;
		for (int call = 0; call < 1_000; call++) {
			int thread = 0;
			for (int t = 1; t < threads; t++) {
				if (nextCall[t] < nextCall[thread]) {
					thread = t;
				}
			}
			time.now = nextCall[thread];
			long wait = limiter.reserve(batch);
			longest = Math.max(longest, wait);
			// the batch is written 10 ms after the wait, then the thread polls again
			nextCall[thread] = time.now + wait + TimeUnit.MILLISECONDS.toNanos(10);
		}
		// 4 x 500 / 100 = 20 s, less the 10 ms the thread spent writing.
		assertThat(longest).isLessThanOrEqualTo(TimeUnit.SECONDS.toNanos(threads * batch / 100))
			.isGreaterThan(TimeUnit.SECONDS.toNanos(19));
	}

	@Test
	void rejectsNonsense() {
		assertThatThrownBy(() -> limiter(0)).isInstanceOf(IllegalArgumentException.class);
		assertThatThrownBy(() -> limiter(5).acquire(-1)).isInstanceOf(IllegalArgumentException.class);
	}

}
