package io.couponevent.waitingroom.room;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.couponevent.common.entry.EntryGate;
import io.couponevent.common.entry.EntryProperties;
import io.couponevent.waitingroom.config.IssuanceRedis;
import io.couponevent.waitingroom.config.PreQueue;
import io.couponevent.waitingroom.config.WaitingRoomProperties;
import io.couponevent.waitingroom.room.CouponStatusClient.CouponStatus;
import io.couponevent.waitingroom.room.RoomStore.Outcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * Once a second per zone: learns the coupons' state from the API (sold out, closed, the
 * opening), advances the admission window even when nobody polls, and keeps the gate key
 * in the issuance Redis while the zone queues. Every {@code sweep-every}: purges leavers.
 */
@Component
class ZoneTicker implements SchedulingConfigurer {

	private static final Logger log = LoggerFactory.getLogger(ZoneTicker.class);

	/** The gate's TTL: a crashed waiting room opens the gate by itself this soon. */
	static final long GATE_TTL_MS = 15_000;

	/** An idle zone's coupons are looked up this often instead of every second. */
	private static final int IDLE_LOOKUP_EVERY = 10;

	private final Zones zones;

	private final RoomStore store;

	private final RoomMetrics metrics;

	private final CouponStatusClient coupons;

	private final StringRedisTemplate issuance;

	private final WaitingRoomProperties properties;

	private final long entryTtlMs;

	/** Zone → whether its gate is on (as last written); absent: unknown, so cleared. */
	private final Map<String, Boolean> gateOn = new ConcurrentHashMap<>();

	private final Map<String, Integer> idleTicks = new ConcurrentHashMap<>();

	ZoneTicker(Zones zones, RoomStore store, RoomMetrics metrics, CouponStatusClient coupons, IssuanceRedis issuance,
			WaitingRoomProperties properties, EntryProperties entry) {
		this.zones = zones;
		this.store = store;
		this.metrics = metrics;
		this.coupons = coupons;
		this.issuance = issuance.template();
		this.properties = properties;
		this.entryTtlMs = entry.ttl().toMillis();
	}

	@Override
	public void configureTasks(ScheduledTaskRegistrar registrar) {
		registrar.addFixedDelayTask(this::tickAll, Duration.ofSeconds(1));
		registrar.addFixedDelayTask(this::sweepAll, this.properties.sweepEvery());
	}

	void tickAll() {
		for (Zone zone : this.zones.known()) {
			try {
				tick(zone);
			}
			catch (RuntimeException ex) {
				log.warn("zone {}: tick failed: {}", zone.name(), ex.toString());
			}
		}
	}

	void tick(Zone zone) {
		boolean busy = this.idleTicks.getOrDefault(zone.name(), 0) == 0;
		if (busy) {
			lookUpCoupons(zone);
		}
		Outcome o = this.store.call(zone, "tick", "", 0, System.currentTimeMillis(), this.entryTtlMs);
		RoomMetrics.ZoneMeters meters = this.metrics.zone(zone.name());
		meters.queueLength.set(o.queueLength());
		meters.active.set(o.active() ? 1 : 0);
		if (o.admittedNow() > 0) {
			meters.admitted.increment(o.admittedNow());
		}
		boolean idle = !o.active() && o.queueLength() == 0;
		this.idleTicks.compute(zone.name(), (k, v) -> idle ? ((v == null ? 0 : v) + 1) % IDLE_LOOKUP_EVERY : 0);
		gate(zone, o.active());
	}

	private void lookUpCoupons(Zone zone) {
		Map<Object, Object> meta = null;
		for (long coupon : zone.coupons()) {
			CouponStatus status;
			try {
				status = this.coupons.get(coupon).orElse(null);
			}
			catch (RuntimeException ex) {
				log.debug("coupon {}: the API did not answer: {}", coupon, ex.toString());
				continue;
			}
			if (status == null || status.state() == null) {
				continue;
			}
			// every lookup, so that a sell-out or a closing that ended is cleared
			this.store.couponState(zone, coupon, status.state());
			switch (status.state()) {
				case "SOLD_OUT", "CLOSED" -> {
					// recorded above: the waiting users learn it at their next poll
				}
				case "SCHEDULED" -> {
					meta = (meta != null) ? meta : this.store.meta(zone);
					if (!"1".equals(meta.get("prequeue")) && status.opensAt() != null) {
						this.store.setMeta(zone,
								Map.of("prequeue", "1", "opensAt", Long.toString(status.opensAt().toEpochMilli())));
					}
				}
				default -> {
					meta = (meta != null) ? meta : this.store.meta(zone);
					if ("1".equals(meta.get("prequeue"))) {
						open(zone, meta);
					}
				}
			}
		}
	}

	/** The opening: the pre-queue is shuffled (or kept in order) and admission starts. */
	private void open(Zone zone, Map<Object, Object> meta) {
		Object override = meta.get("preQueue");
		PreQueue order = override != null ? PreQueue.of(override.toString()) : zone.settings().preQueue();
		long opensAt = Long.parseLong(String.valueOf(meta.getOrDefault("opensAt", System.currentTimeMillis())));
		if (order == PreQueue.SHUFFLE) {
			this.store.shuffle(zone, Math.max(opensAt, System.currentTimeMillis()));
		}
		this.store.setMeta(zone, Map.of("prequeue", "0"));
		log.info("zone {}: opened, pre-queue {}", zone.name(), order.wire());
	}

	private void gate(Zone zone, boolean active) {
		Boolean was = this.gateOn.get(zone.name());
		if (active) {
			Set<String> soldOut = this.store.soldOut(zone);
			long expiry = System.currentTimeMillis() + GATE_TTL_MS;
			for (long coupon : zone.coupons()) {
				if (soldOut == null || !soldOut.contains(Long.toString(coupon))) {
					this.issuance.opsForValue()
						.set(EntryGate.key(coupon), Long.toString(expiry), Duration.ofMillis(GATE_TTL_MS));
				}
			}
		}
		else if (was == null || was) {
			for (long coupon : zone.coupons()) {
				this.issuance.delete(EntryGate.key(coupon));
			}
		}
		this.gateOn.put(zone.name(), active);
	}

	void sweepAll() {
		for (Zone zone : this.zones.known()) {
			try {
				long purged = this.store.purge(zone,
						System.currentTimeMillis() - zone.settings().purgeAfter().toMillis());
				if (purged > 0) {
					this.metrics.zone(zone.name()).purged.increment(purged);
					log.info("zone {}: purged {} users silent for {}", zone.name(), purged,
							zone.settings().purgeAfter());
				}
			}
			catch (RuntimeException ex) {
				log.warn("zone {}: sweep failed: {}", zone.name(), ex.toString());
			}
		}
	}

}
