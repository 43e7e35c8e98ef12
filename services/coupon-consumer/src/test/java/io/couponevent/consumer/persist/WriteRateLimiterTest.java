package io.couponevent.consumer.persist;

import java.util.ArrayList;
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

	@Test
	void rejectsNonsense() {
		assertThatThrownBy(() -> limiter(0)).isInstanceOf(IllegalArgumentException.class);
		assertThatThrownBy(() -> limiter(5).acquire(-1)).isInstanceOf(IllegalArgumentException.class);
	}

}
