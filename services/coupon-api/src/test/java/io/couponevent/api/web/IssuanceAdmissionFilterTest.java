package io.couponevent.api.web;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.couponevent.api.config.IssuanceProperties;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The admission bound in isolation (servlet fakes): who waits, who is turned away, and
 * how.
 */
class IssuanceAdmissionFilterTest {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final IssuanceAdmissionFilter filter = filter(Duration.ofMillis(100), Duration.ofSeconds(2), registry);

	/** One turn; {@code wait} for it; 503s suggest {@code retryAfter}. */
	private static IssuanceAdmissionFilter filter(Duration wait, Duration retryAfter, SimpleMeterRegistry registry) {
		return new IssuanceAdmissionFilter(
				new IssuanceProperties(Duration.ofSeconds(2), Duration.ofSeconds(6), retryAfter, 1, wait),
				JsonMapper.builder().build(), registry);
	}

	private static MockHttpServletRequest post() {
		return new MockHttpServletRequest("POST", "/api/v1/coupons/7/issuances");
	}

	/** A request inside the filter until {@link #leave()}: it holds the only turn. */
	private static final class Holder {

		private final CountDownLatch inside = new CountDownLatch(1);

		private final CountDownLatch leave = new CountDownLatch(1);

		private final Thread thread;

		Holder(IssuanceAdmissionFilter filter) throws InterruptedException {
			thread = Thread.ofVirtual().start(() -> {
				try {
					filter.doFilter(post(), new MockHttpServletResponse(), (req, res) -> {
						inside.countDown();
						try {
							leave.await(30, TimeUnit.SECONDS);
						}
						catch (InterruptedException e) {
							Thread.currentThread().interrupt();
						}
					});
				}
				catch (Exception e) {
					throw new IllegalStateException(e);
				}
			});
			assertThat(inside.await(10, TimeUnit.SECONDS)).as("the holder got its turn").isTrue();
		}

		void leave() throws InterruptedException {
			leave.countDown();
			thread.join(30_000);
		}

	}

	@Test
	void pastTheBoundARequestIsTurnedAwayWithAProblemAndRetryAfter() throws Exception {
		Holder holder = new Holder(filter);
		assertThat(registry.get("coupon.issuance.in.flight").gauge().value()).isEqualTo(1.0);

		AtomicInteger served = new AtomicInteger();
		MockHttpServletResponse turnedAway = new MockHttpServletResponse();
		filter.doFilter(post(), turnedAway, (req, res) -> served.incrementAndGet());

		assertThat(turnedAway.getStatus()).isEqualTo(503);
		assertThat(turnedAway.getHeader("Retry-After")).isEqualTo("2");
		assertThat(turnedAway.getContentType()).startsWith("application/problem+json");
		assertThat(turnedAway.getContentAsString()).contains("\"code\":\"OVERLOADED\"").contains("\"status\":503");
		assertThat(served).as("the turned-away request never reached the chain").hasValue(0);
		assertThat(registry.get("coupon.issuance.admission.rejected").counter().count()).isEqualTo(1.0);

		holder.leave();
		MockHttpServletResponse admitted = new MockHttpServletResponse();
		filter.doFilter(post(), admitted, (req, res) -> served.incrementAndGet());
		assertThat(admitted.getStatus()).isEqualTo(200);
		assertThat(served).as("a turn is given back when a request ends").hasValue(1);
		assertThat(registry.get("coupon.issuance.in.flight").gauge().value()).isZero();
	}

	@Test
	void aRequestThatWaitsWithinTheBoundIsServed() throws Exception {
		// A long wait, so the outcome does not depend on how fast this machine schedules
		// threads.
		IssuanceAdmissionFilter patient = filter(Duration.ofSeconds(30), Duration.ofSeconds(1),
				new SimpleMeterRegistry());
		Holder holder = new Holder(patient);
		AtomicInteger served = new AtomicInteger();
		MockHttpServletResponse response = new MockHttpServletResponse();
		Thread second = Thread.ofVirtual().start(() -> {
			try {
				patient.doFilter(post(), response, (req, res) -> served.incrementAndGet());
			}
			catch (Exception e) {
				throw new IllegalStateException(e);
			}
		});
		Thread.sleep(200);
		assertThat(served).as("waits while the only turn is taken").hasValue(0);
		holder.leave();
		second.join(30_000);
		assertThat(served).hasValue(1);
		assertThat(response.getStatus()).isEqualTo(200);
	}

	@Test
	void statusPollsAndOtherMethodsNeverWait() throws Exception {
		Holder holder = new Holder(filter);
		AtomicInteger served = new AtomicInteger();
		filter.doFilter(new MockHttpServletRequest("GET", "/api/v1/coupons/7/issuances/me"),
				new MockHttpServletResponse(), (req, res) -> served.incrementAndGet());
		filter.doFilter(new MockHttpServletRequest("GET", "/api/v1/coupons/7"), new MockHttpServletResponse(),
				(req, res) -> served.incrementAndGet());
		holder.leave();
		assertThat(served).hasValue(2);
		assertThat(registry.get("coupon.issuance.admission.rejected").counter().count()).isZero();
	}

}
