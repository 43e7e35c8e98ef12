package io.couponevent.waitingroom.room;

import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.couponevent.common.entry.EntryGate;
import io.couponevent.common.entry.EntryProperties;
import io.couponevent.waitingroom.room.CouponStatusClient.CouponStatus;
import io.couponevent.waitingroom.room.RoomStore.Outcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

	/** Coupon id → true (the API knows it) or the time it answered 404. */
	private final Map<Long, Long> checked = new ConcurrentHashMap<>();

	private final Map<Long, Object> lookups = new ConcurrentHashMap<>();

	WaitingRoom(Zones zones, RoomStore store, RoomMetrics metrics, CouponStatusClient coupons, EntryProperties entry) {
		if (!entry.enabled()) {
			throw new IllegalStateException("coupon.entry.secret (COUPON_ENTRY_SECRET) is required");
		}
		this.zones = zones;
		this.store = store;
		this.metrics = metrics;
		this.coupons = coupons;
		this.gate = new EntryGate(entry.secret());
		this.entryTtlMs = entry.ttl().toMillis();
		this.clock = Clock.systemUTC();
	}

	Entry join(String user, long couponId) {
		Zone zone = this.zones.forCoupon(couponId);
		requireKnown(zone, couponId);
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
		Zone zone = this.zones.forCoupon(couponId);
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
		long now = this.clock.millis();
		Outcome o = this.store.call(zone, op, user, couponId, now, this.entryTtlMs);
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
	 * A join for a coupon the API does not know is refused, so that nobody can fill Redis
	 * with zones; when the API cannot answer, the join goes through (fail open: the API
	 * refuses unknown coupons itself).
	 */
	private void requireKnown(Zone zone, long couponId) {
		if (known(couponId)) {
			return;
		}
		// one lookup per coupon at a time: a spike's first joins all arrive before the
		// first
		// answer
		synchronized (this.lookups.computeIfAbsent(couponId, (id) -> new Object())) {
			if (!known(couponId)) {
				lookUp(zone, couponId);
			}
		}
	}

	/** True when the API knows the coupon; throws while its 404 is believed. */
	private boolean known(long couponId) {
		Long seen = this.checked.get(couponId);
		if (seen != null && seen != 0 && this.clock.millis() - seen < UNKNOWN_COUPON_MS) {
			throw new CouponNotFoundException(couponId);
		}
		return seen != null && seen == 0;
	}

	private void lookUp(Zone zone, long couponId) {
		long now = this.clock.millis();
		Optional<CouponStatus> status;
		try {
			status = this.coupons.get(couponId);
		}
		catch (RestClientException ex) {
			// believed known, so that an API outage does not cost every join a failed
			// call
			log.warn("coupon {}: the API did not answer ({}); letting joins through", couponId, ex.toString());
			this.checked.put(couponId, 0L);
			return;
		}
		if (status.isEmpty()) {
			this.checked.put(couponId, now);
			throw new CouponNotFoundException(couponId);
		}
		this.checked.put(couponId, 0L);
		CouponStatus coupon = status.get();
		// before the opening everybody queues (the pre-queue), from the first join on
		if ("SCHEDULED".equals(coupon.state()) && coupon.opensAt() != null && coupon.opensAt().toEpochMilli() > now) {
			this.store.setMeta(zone,
					Map.of("prequeue", "1", "opensAt", Long.toString(coupon.opensAt().toEpochMilli())));
		}
	}

}
