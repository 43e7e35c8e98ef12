package io.couponevent.waitingroom.room;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.couponevent.common.entry.EntryProperties;
import io.couponevent.waitingroom.config.IssuanceRedis;
import io.couponevent.waitingroom.config.PreQueue;
import io.couponevent.waitingroom.config.WaitingRoomProperties;
import io.couponevent.waitingroom.room.CouponStatusClient.CouponStatus;
import io.couponevent.waitingroom.room.RoomStore.Outcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * Once a second per zone: advances the admission window even when nobody polls, and keeps
 * the gate key in the issuance Redis while the zone queues. On a thread of its own, also
 * about once a second (every ten seconds for an idle zone): learns the coupons' state
 * from the API (sold out, closed, the opening). The lookups block, up to a connect and a
 * read timeout each; were the gates renewed after them, a few slow answers would outlast
 * the gate's TTL and open the gates while users queue. Every {@code sweep-every}: purges
 * leavers.
 */
@Component
class ZoneTicker implements SchedulingConfigurer, DisposableBean {

	private static final Logger log = LoggerFactory.getLogger(ZoneTicker.class);

	/**
	 * The gate's TTL: a crashed waiting room opens the gate by itself this soon. It
	 * outlasts a restart of the room (a JVM start: 25-126 s on the starved harness): were
	 * it shorter, a room restarted under a queue would let anybody issue without an entry
	 * token until it was back (test-faults' room-kill-failover: 15 s let 89 in, 2 min let
	 * 56 in after an outage of 146 s). Until then issuance waits for the room: nobody
	 * gets a new entry token while it is down either.
	 */
	static final long GATE_TTL_MS = 300_000;

	/**
	 * A pod's claim on a zone's opening lapses this long after it was made: the pod died
	 * before the pre-queue was shuffled.
	 */
	private static final long OPENING_CLAIM_MS = 60_000;

	/** An idle zone's coupons are looked up this often instead of every second. */
	private static final long IDLE_LOOKUP_MS = 10_000;

	private final Zones zones;

	private final RoomStore store;

	private final RoomMetrics metrics;

	private final CouponStatusClient coupons;

	private final StringRedisTemplate issuance;

	/** The gate keys, under the API's key prefix. */
	private final IssuanceRedis gates;

	private final WaitingRoomProperties properties;

	private final long entryTtlMs;

	/** Zone → whether its gate is on (as last written); absent: unknown, so cleared. */
	private final Map<String, Boolean> gateOn = new ConcurrentHashMap<>();

	/** Zones whose last tick found no queue and no activity. */
	private final Set<String> idle = ConcurrentHashMap.newKeySet();

	/** Zone → when its coupons were looked up last (ms). */
	private final Map<String, Long> lookedUp = new ConcurrentHashMap<>();

	/**
	 * When this pod started: it purges nobody for {@code purge-after} after it, as users
	 * whose polls failed while the room was down (every pod restarted, or not yet up) did
	 * not leave; a silence that began before the start is not theirs to answer for.
	 */
	private final long startedNanos = System.nanoTime();

	private final ScheduledExecutorService lookups = Executors
		.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("coupon-lookups").daemon().factory());

	ZoneTicker(Zones zones, RoomStore store, RoomMetrics metrics, CouponStatusClient coupons, IssuanceRedis issuance,
			WaitingRoomProperties properties, EntryProperties entry) {
		this.zones = zones;
		this.store = store;
		this.metrics = metrics;
		this.coupons = coupons;
		this.issuance = issuance.template();
		this.gates = issuance;
		this.properties = properties;
		this.entryTtlMs = entry.ttl().toMillis();
	}

	@Override
	public void configureTasks(ScheduledTaskRegistrar registrar) {
		registrar.addFixedDelayTask(this::tickAll, Duration.ofSeconds(1));
		registrar.addFixedDelayTask(this::sweepAll, this.properties.sweepEvery());
		this.lookups.scheduleWithFixedDelay(this::lookUpAll, 0, 1, TimeUnit.SECONDS);
	}

	@Override
	public void destroy() {
		this.lookups.shutdownNow();
	}

	void lookUpAll() {
		for (Zone zone : this.zones.known()) {
			long now = System.currentTimeMillis();
			if (this.idle.contains(zone.name()) && now - this.lookedUp.getOrDefault(zone.name(), 0L) < IDLE_LOOKUP_MS) {
				continue;
			}
			try {
				lookUpCoupons(zone);
			}
			catch (RuntimeException ex) {
				log.warn("zone {}: lookup failed: {}", zone.name(), ex.toString());
			}
			this.lookedUp.put(zone.name(), now);
		}
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
		Outcome o = this.store.call(zone, "tick", "", 0, this.entryTtlMs);
		RoomMetrics.ZoneMeters meters = this.metrics.zone(zone.name());
		meters.queueLength.set(o.queueLength());
		meters.active.set(o.active() ? 1 : 0);
		if (o.admittedNow() > 0) {
			meters.admitted.increment(o.admittedNow());
		}
		if (!o.active() && o.queueLength() == 0) {
			this.idle.add(zone.name());
		}
		else {
			this.idle.remove(zone.name());
		}
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
				case "OPEN" -> {
					meta = (meta != null) ? meta : this.store.meta(zone);
					if ("1".equals(meta.get("prequeue"))) {
						open(zone, meta);
					}
				}
				default -> {
					// PAUSED (which the API reports before SCHEDULED too): no opening yet
				}
			}
		}
	}

	/**
	 * The opening, by one pod (its claim in the zone's hash): the users who queued before
	 * the opening are shuffled (or kept in order), and admission starts.
	 */
	private void open(Zone zone, Map<Object, Object> meta) {
		if (!this.store.claimOpening(zone, OPENING_CLAIM_MS)) {
			return;
		}
		Object override = meta.get("preQueue");
		PreQueue order = override != null ? PreQueue.of(override.toString()) : zone.settings().preQueue();
		long opensAt = Long.parseLong(String.valueOf(meta.getOrDefault("opensAt", System.currentTimeMillis())));
		if (order == PreQueue.SHUFFLE) {
			this.store.shuffle(zone, opensAt);
		}
		this.store.opened(zone);
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
						.set(this.gates.gateKey(coupon), Long.toString(expiry), Duration.ofMillis(GATE_TTL_MS));
				}
			}
		}
		else if (was == null || was) {
			for (long coupon : zone.coupons()) {
				this.issuance.delete(this.gates.gateKey(coupon));
			}
		}
		this.gateOn.put(zone.name(), active);
	}

	void sweepAll() {
		long upMs = (System.nanoTime() - this.startedNanos) / 1_000_000;
		for (Zone zone : this.zones.known()) {
			if (upMs < zone.settings().purgeAfter().toMillis()) {
				// users were silent while no room answered them: not leavers (yet)
				continue;
			}
			try {
				long purged = this.store.purge(zone, zone.settings().purgeAfter().toMillis());
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
