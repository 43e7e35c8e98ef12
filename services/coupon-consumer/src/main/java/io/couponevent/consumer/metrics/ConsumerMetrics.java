package io.couponevent.consumer.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.couponevent.consumer.persist.DeadLetterReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import org.springframework.stereotype.Component;

/**
 * The consumer's own meters; names are fixed by docs/contract.md (dashboards and alerts
 * use them).
 */
@Component
public class ConsumerMetrics {

	private final MeterRegistry registry;

	private final Timer persistDelay;

	private final DistributionSummary batchSize;

	private final Counter duplicates;

	/** One counter per coupon, looked up once rather than registered per row. */
	private final Map<Long, Counter> insertedByCoupon = new ConcurrentHashMap<>();

	public ConsumerMetrics(MeterRegistry registry) {
		this.registry = registry;
		this.persistDelay = Timer.builder("coupon.persist.delay")
			.description("Time from the Redis reservation to the committed MySQL row")
			.publishPercentileHistogram()
			.minimumExpectedValue(Duration.ofMillis(1))
			.maximumExpectedValue(Duration.ofMinutes(10))
			.register(registry);
		this.batchSize = DistributionSummary.builder("coupon.consumer.batch.size")
			.description("Records per listener batch")
			.publishPercentileHistogram()
			.minimumExpectedValue(1.0)
			.maximumExpectedValue(5_000.0)
			.register(registry);
		this.duplicates = Counter.builder("coupon.consumer.duplicates")
			.description("Redelivered events whose row already existed")
			.register(registry);
		for (DeadLetterReason reason : DeadLetterReason.values()) {
			deadLetterCounter(reason); // present at 0, so rate() and alerts see the
										// series from the start
		}
	}

	public void batch(int size) {
		batchSize.record(size);
	}

	public void inserted(long couponId, Instant reservedAt, Instant committedAt) {
		insertedByCoupon.computeIfAbsent(couponId, this::insertedCounter).increment();
		Duration delay = Duration.between(reservedAt, committedAt);
		persistDelay.record(delay.isNegative() ? Duration.ZERO : delay);
	}

	private Counter insertedCounter(long couponId) {
		return Counter.builder("coupon.consumer.inserted")
			.description("Rows committed to issued_coupons")
			.tag("coupon", Long.toString(couponId))
			.register(registry);
	}

	public void duplicate() {
		duplicates.increment();
	}

	public void deadLettered(DeadLetterReason reason) {
		deadLetterCounter(reason).increment();
	}

	private Counter deadLetterCounter(DeadLetterReason reason) {
		return Counter.builder("coupon.dlq.records")
			.description("Records published to the dead-letter topic")
			.tag("reason", reason.tag())
			.register(registry);
	}

}
