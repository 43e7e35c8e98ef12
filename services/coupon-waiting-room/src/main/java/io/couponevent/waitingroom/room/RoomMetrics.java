package io.couponevent.waitingroom.room;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import org.springframework.stereotype.Component;

/** The waiting room's meters, tagged by zone only. */
@Component
class RoomMetrics {

	private final MeterRegistry registry;

	private final Map<String, ZoneMeters> zones = new ConcurrentHashMap<>();

	RoomMetrics(MeterRegistry registry) {
		this.registry = registry;
	}

	ZoneMeters zone(String zone) {
		return this.zones.computeIfAbsent(zone, (z) -> new ZoneMeters(this.registry, z));
	}

	static final class ZoneMeters {

		final AtomicLong queueLength = new AtomicLong();

		final AtomicLong active = new AtomicLong();

		final Counter admitted;

		final Counter joined;

		final Counter purged;

		final Counter soldOut;

		final Timer poll;

		final Timer join;

		final DistributionSummary etaError;

		ZoneMeters(MeterRegistry registry, String zone) {
			Gauge.builder("coupon.waiting.room.queue.length", this.queueLength, AtomicLong::get)
				.description("users waiting in the zone's queue")
				.tag("zone", zone)
				.register(registry);
			Gauge.builder("coupon.waiting.room.active", this.active, AtomicLong::get)
				.description("1 while the zone queues arrivals")
				.tag("zone", zone)
				.register(registry);
			this.admitted = Counter.builder("coupon.waiting.room.admitted").tag("zone", zone).register(registry);
			this.joined = Counter.builder("coupon.waiting.room.joined").tag("zone", zone).register(registry);
			this.purged = Counter.builder("coupon.waiting.room.purged").tag("zone", zone).register(registry);
			this.soldOut = Counter.builder("coupon.waiting.room.sold.out")
				.description("waiting users told that the coupon sold out")
				.tag("zone", zone)
				.register(registry);
			this.poll = Timer.builder("coupon.waiting.room.poll")
				.publishPercentileHistogram()
				.tag("zone", zone)
				.register(registry);
			this.join = Timer.builder("coupon.waiting.room.join")
				.publishPercentileHistogram()
				.tag("zone", zone)
				.register(registry);
			this.etaError = DistributionSummary.builder("coupon.waiting.room.eta.error.ratio")
				.description("|actual wait - predicted wait| / predicted wait, at admission")
				.publishPercentileHistogram()
				.tag("zone", zone)
				.register(registry);
		}

	}

}
