package io.couponevent.api.issuance;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import org.springframework.stereotype.Component;

/**
 * The meters of docs/contract.md (Prometheus names
 * {@code coupon_issuance_requests_total}, …).
 */
@Component
public class IssuanceMetrics {

	private static final Duration[] SLO = { Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
			Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500),
			Duration.ofSeconds(1), Duration.ofMillis(2500) };

	private final MeterRegistry registry;

	private final Map<Long, AtomicLong> remaining = new ConcurrentHashMap<>();

	private final Map<Long, Map<String, Counter>> requests = new ConcurrentHashMap<>();

	private final Map<String, Timer> durations = new ConcurrentHashMap<>();

	/** Every tag value the counters below can take; see {@link #IssuanceMetrics}. */
	static final String[] COMPENSATION_REASONS = { "timeout", "interrupted", "send_failed", "deferred", "stale" };
	static final String[] RECONCILER_ACTIONS = { "rebuild", "release_stale", "release_held", "adopt_row",
			"repoint_user" };

	public IssuanceMetrics(MeterRegistry registry) {
		this.registry = registry;
		// Registered at 0 up front: a series that appears only on its first increment is
		// invisible to increase()/rate() alerts for that first event, and absent from the
		// scrape until then.
		for (String reason : COMPENSATION_REASONS) {
			Counter.builder("coupon.compensations").tag("reason", reason).register(registry);
		}
		for (String action : RECONCILER_ACTIONS) {
			Counter.builder("coupon.reconciler.actions").tag("action", action).register(registry);
		}
	}

	/**
	 * {@code result} ∈ accepted, duplicate, sold_out, not_open, closed, paused,
	 * not_found, rejected, shed, entry_required.
	 */
	public void record(long couponId, String result, long startNanos) {
		// Looked up in two small maps: building and registering a meter per request
		// (tags sorted, an id allocated, the registry's map consulted) cost more than the
		// increment itself.
		requests.computeIfAbsent(couponId, k -> new ConcurrentHashMap<>())
			.computeIfAbsent(result,
					r -> Counter.builder("coupon.issuance.requests")
						.tag("coupon", Long.toString(couponId))
						.tag("result", r)
						.register(registry))
			.increment();
		durations
			.computeIfAbsent(result,
					r -> Timer.builder("coupon.issuance.duration")
						.tag("result", r)
						.serviceLevelObjectives(SLO)
						.register(registry))
			.record(System.nanoTime() - startNanos, java.util.concurrent.TimeUnit.NANOSECONDS);
	}

	public void stockRemaining(long couponId, long value) {
		remaining.computeIfAbsent(couponId, id -> {
			AtomicLong holder = new AtomicLong();
			Gauge.builder("coupon.stock.remaining", holder, AtomicLong::get)
				.tag("coupon", Long.toString(id))
				.register(registry);
			return holder;
		}).set(Math.max(0, value));
	}

	public void compensation(String reason) {
		Counter.builder("coupon.compensations").tag("reason", reason).register(registry).increment();
	}

	public void reconcilerAction(String action, long count) {
		if (count > 0) {
			Counter.builder("coupon.reconciler.actions").tag("action", action).register(registry).increment(count);
		}
	}

}
