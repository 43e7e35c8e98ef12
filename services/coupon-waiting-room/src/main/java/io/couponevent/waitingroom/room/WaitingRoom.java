package io.couponevent.waitingroom.room;

import java.time.Clock;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.couponevent.common.entry.EntryGate;
import io.couponevent.common.entry.EntryProperties;
import io.couponevent.waitingroom.room.CouponStatusClient.CouponStatus;
import io.couponevent.waitingroom.room.RoomStore.Outcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestClientException;

/** Join and poll: one script call each, then the answer and the token. */
@Service
class WaitingRoom {

	private static final Logger log = LoggerFactory.getLogger(WaitingRoom.class);

	/** How long the answer "the API does not know this coupon" is believed. */
	private static final long UNKNOWN_COUPON_MS = 5_000;

	static final long MAX_POLL_AFTER_MS = 30_000;

	/**
	 * A poll just after an admission step finds the step taken (by the poll itself if
	 * need be).
	 */
	static final long STEP_MARGIN_MS = 100;

	static final long MAX_STEP_SPREAD_MS = 1_500;

	private final Zones zones;

	private final RoomStore store;

	private final RoomMetrics metrics;

	private final CouponStatusClient coupons;

	private final EntryGate gate;

	private final long entryTtlMs;

	private final Clock clock;

	/** How many recent 404s are remembered: bounded, whatever ids a client sends. */
	private static final int UNKNOWN_REMEMBERED = 10_000;

	/** Coupons the API knew: only these get a zone, meters and Redis state. */
	private final Set<Long> known = ConcurrentHashMap.newKeySet();

	/** Recent 404s (coupon id → when), the oldest dropped first. */
	private final Map<Long, Long> unknown = Collections.synchronizedMap(new LinkedHashMap<>(256, 0.75f, false) {

		@Override
		protected boolean removeEldestEntry(Map.Entry<Long, Long> eldest) {
			return size() > UNKNOWN_REMEMBERED;
		}

	});

	/** One lookup per coupon at a time, striped so that no id adds state. */
	private final Object[] lookups = new Object[64];

	@Autowired
	WaitingRoom(Zones zones, RoomStore store, RoomMetrics metrics, CouponStatusClient coupons, EntryProperties entry) {
		this(zones, store, metrics, coupons, entry, Clock.systemUTC());
	}

	/** With the pod's clock given: a test's pod whose clock is off. */
	WaitingRoom(Zones zones, RoomStore store, RoomMetrics metrics, CouponStatusClient coupons, EntryProperties entry,
			Clock clock) {
		if (!entry.enabled()) {
			throw new IllegalStateException("coupon.entry.secret (COUPON_ENTRY_SECRET) is required");
		}
		this.zones = zones;
		this.store = store;
		this.metrics = metrics;
		this.coupons = coupons;
		this.gate = new EntryGate(entry.secret());
		this.entryTtlMs = entry.ttl().toMillis();
		this.clock = clock;
		for (int i = 0; i < this.lookups.length; i++) {
			this.lookups[i] = new Object();
		}
	}

	Entry join(String user, long couponId) {
		Zone zone = zoneOf(couponId);
		RoomMetrics.ZoneMeters meters = this.metrics.zone(zone.name());
		long start = System.nanoTime();
		try {
			return answer(zone, meters, user, couponId, "join");
		}
		finally {
			meters.join.record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
		}
	}

	Entry poll(String user, long couponId) {
		Zone zone = zoneOf(couponId);
		RoomMetrics.ZoneMeters meters = this.metrics.zone(zone.name());
		long start = System.nanoTime();
		try {
			return answer(zone, meters, user, couponId, "poll");
		}
		finally {
			meters.poll.record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
		}
	}

	private Entry answer(Zone zone, RoomMetrics.ZoneMeters meters, String user, long couponId, String op) {
		Outcome o = this.store.call(zone, op, user, couponId, this.entryTtlMs);
		record(meters, o);
		return switch (o.state()) {
			case "QUEUED" -> new Entry("QUEUED", o.position(), ceilSeconds(o.etaMs()),
					pollAfter(o.etaMs(), zone.settings().subWindow().toMillis(), user), null, null, null);
			case "PAUSED" -> new Entry("PAUSED", o.position(), null, 5_000, null, null, null);
			case "ADMITTED" -> {
				Instant expiresAt = Instant.ofEpochMilli(o.admittedAt() + this.entryTtlMs);
				yield new Entry("ADMITTED", 0, 0L, 0, this.gate.issue(user, couponId, expiresAt), expiresAt,
						Instant.ofEpochMilli(o.admittedAt()));
			}
			case "SOLD_OUT", "CLOSED" -> new Entry(o.state(), 0, null, 0, null, null, null);
			default -> throw new NotInQueueException(couponId);
		};
	}

	private static void record(RoomMetrics.ZoneMeters meters, Outcome o) {
		meters.queueLength.set(o.queueLength());
		meters.active.set(o.active() ? 1 : 0);
		if (o.admittedNow() > 0) {
			meters.admitted.increment(o.admittedNow());
		}
		if (o.joined()) {
			meters.joined.increment();
		}
		if (o.toldSoldOut()) {
			meters.soldOut.increment();
		}
		long predictedWait = o.predictedAt() - o.joinedAt();
		// below one second the ratio says more about timer resolution than about the
		// estimate
		if (o.predictedAt() >= 0 && predictedWait >= 1000) {
			long actualWait = o.admittedAt() - o.joinedAt();
			meters.etaError.record(Math.abs(actualWait - predictedWait) / (double) predictedWait);
		}
	}

	/**
	 * When to poll next: halfway through the estimated wait (at most 30 s), but never
	 * before the next admission step, since nothing but a sell-out can change in between.
	 * A user let in at the next step polls after it, spread by user over three quarters
	 * of a sub-window (at most 1.5 s), so that the step's users ask, and then issue, as
	 * an even flow rather than a burst: the issuance core takes a step's users at the
	 * rate of the budget, not four times it. Everyone else is spread by user too: the
	 * estimate moves in whole steps, so a step's worth of users share it, and halving it
	 * at each poll packs their polls ever closer until they land together; a waiting user
	 * polls within the same spread after the next step, or up to a quarter earlier than
	 * halfway. The estimate counts down on the client in between, so a longer interval
	 * loses nothing but sold-out news, which waits at most one interval. A queue's poll
	 * load therefore grows with the logarithm of its estimated wait, not with its length,
	 * and the 30 s cap keeps every user well inside purge-after.
	 * @param etaMs the estimated wait: the time to the next step plus a sub-window per
	 * quota ahead
	 * @param windowMs the zone's sub-window
	 * @param user the user, whose hash places them in the spread
	 */
	static long pollAfter(long etaMs, long windowMs, String user) {
		long toStep = (etaMs - 1) % windowMs + 1;
		long spread = Math.max(1, Math.min(windowMs * 3 / 4, MAX_STEP_SPREAD_MS));
		long offset = Math.floorMod(user.hashCode(), spread);
		if (etaMs <= toStep) {
			return etaMs + STEP_MARGIN_MS + offset;
		}
		// the user's own step is at least a sub-window after the next, so both stay
		// before it
		long half = Math.min(MAX_POLL_AFTER_MS, etaMs / 2);
		long early = offset % Math.max(1, Math.min(spread, half / 4));
		return Math.max(toStep + STEP_MARGIN_MS + offset, half - early);
	}

	private static Long ceilSeconds(long ms) {
		return ms < 0 ? null : (ms + 999) / 1000;
	}

	/**
	 * The coupon's zone, once the API has said it knows the coupon. An id it does not
	 * know is refused before any zone, meter or Redis key exists for it (so that nobody
	 * can fill Redis, the meters and the ticker with zones); when the API cannot answer
	 * for a coupon not yet confirmed, the request is refused as unavailable for the same
	 * reason.
	 */
	Zone zoneOf(long couponId) {
		if (!this.known.contains(couponId)) {
			// one lookup per coupon at a time: a spike's first joins all arrive before
			// the
			// first answer
			synchronized (this.lookups[Long.hashCode(couponId) & (this.lookups.length - 1)]) {
				if (!this.known.contains(couponId)) {
					lookUp(couponId);
				}
			}
		}
		return this.zones.forCoupon(couponId);
	}

	private void lookUp(long couponId) {
		long now = this.clock.millis();
		Long refused = this.unknown.get(couponId);
		if (refused != null && now - refused < UNKNOWN_COUPON_MS) {
			throw new CouponNotFoundException(couponId);
		}
		Optional<CouponStatus> status;
		try {
			status = this.coupons.get(couponId);
		}
		catch (RestClientException ex) {
			log.warn("coupon {}: the API did not answer ({})", couponId, ex.toString());
			throw new CouponLookupException(couponId, ex);
		}
		if (status.isEmpty()) {
			this.unknown.put(couponId, now);
			throw new CouponNotFoundException(couponId);
		}
		this.unknown.remove(couponId);
		CouponStatus coupon = status.get();
		Zone zone = this.zones.forCoupon(couponId);
		// before the opening everybody queues (the pre-queue), from the first join on
		if ("SCHEDULED".equals(coupon.state()) && coupon.opensAt() != null && coupon.opensAt().toEpochMilli() > now) {
			this.store.setMeta(zone,
					Map.of("prequeue", "1", "opensAt", Long.toString(coupon.opensAt().toEpochMilli())));
		}
		this.known.add(couponId);
	}

}
