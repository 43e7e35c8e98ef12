package io.couponevent.waitingroom.room;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import io.couponevent.common.ClasspathText;
import io.couponevent.waitingroom.config.WaitingRoomProperties.ZoneSettings;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

/** A zone's state in the queue's Redis Cluster. */
@Component
class RoomStore {

	/** Members per range operation: well under Lua's unpack limit (~8000). */
	static final int CHUNK = 1000;

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> ROOM = RedisScript.of(ClasspathText.read("scripts/room.lua"), List.class);

	private static final RedisScript<Long> PURGE = RedisScript.of(ClasspathText.read("scripts/purge.lua"), Long.class);

	private static final RedisScript<Long> SHUFFLE = RedisScript.of(ClasspathText.read("scripts/shuffle.lua"),
			Long.class);

	private static final RedisScript<Long> COUPON_STATE = RedisScript.of(ClasspathText.read("scripts/coupon-state.lua"),
			Long.class);

	private static final RedisScript<Long> OPENING = RedisScript.of(ClasspathText.read("scripts/opening.lua"),
			Long.class);

	private final StringRedisTemplate redis;

	RoomStore(StringRedisTemplate redis) {
		// A template of its own that hands the script executor the connection itself: by
		// default every call wraps it in a close-suppressing proxy built by reflection, a
		// per-call cost on the path of every join and poll.
		this.redis = new StringRedisTemplate(redis.getRequiredConnectionFactory());
		this.redis.setExposeConnection(true);
	}

	/**
	 * The one round trip of a join, poll or tick: advances the zone's admission window,
	 * then answers for the user.
	 */
	Outcome call(Zone zone, String op, String user, long couponId, long entryTtlMs) {
		ZoneSettings s = zone.settings();
		List<?> r = this.redis.execute(ROOM, zone.scriptKeys(), op, user, Long.toString(couponId),
				Integer.toString(s.budgetPerMinute()), s.mode().wire(), Long.toString(s.subWindow().toMillis()),
				Long.toString(entryTtlMs));
		return new Outcome((String) r.get(0), num(r, 1), num(r, 2), num(r, 3), num(r, 4), num(r, 5) == 1, num(r, 6),
				num(r, 7), num(r, 8) == 1, num(r, 9), num(r, 10) == 1);
	}

	private static long num(List<?> r, int i) {
		return ((Number) r.get(i)).longValue();
	}

	/**
	 * Purges users silent for longer than {@code purgeAfterMs} (by Redis's clock), a
	 * chunk per call; the number purged.
	 */
	long purge(Zone zone, long purgeAfterMs) {
		long total = 0;
		long n;
		do {
			n = this.redis.execute(PURGE, List.of(zone.queue(), zone.admitted(), zone.seen(), zone.eta()),
					Long.toString(purgeAfterMs), Integer.toString(CHUNK));
			total += n;
		}
		while (n == CHUNK);
		return total;
	}

	/** The operator's overrides of a zone's settings, and its counters. */
	Map<Object, Object> meta(Zone zone) {
		return this.redis.opsForHash().entries(zone.meta());
	}

	void setMeta(Zone zone, Map<String, String> fields) {
		this.redis.opsForHash().putAll(zone.meta(), fields);
	}

	/**
	 * The coupon's state as the API reports it: sold out, closed, or neither (which
	 * clears an earlier sell-out or closing).
	 */
	void couponState(Zone zone, long couponId, String state) {
		this.redis.execute(COUPON_STATE, List.of(zone.soldOut(), zone.closed()), Long.toString(couponId), state);
	}

	Set<String> soldOut(Zone zone) {
		return this.redis.opsForSet().members(zone.soldOut());
	}

	/**
	 * Claims the zone's opening for this pod: false when the pre-queue is off or another
	 * pod's claim is younger than {@code claimMs}.
	 */
	boolean claimOpening(Zone zone, long claimMs) {
		return Long.valueOf(1).equals(this.redis.execute(OPENING, List.of(zone.meta()), Long.toString(claimMs)));
	}

	/** The opening is done: admission starts, the claim is dropped. */
	void opened(Zone zone) {
		setMeta(zone, Map.of("prequeue", "0"));
		this.redis.opsForHash().delete(zone.meta(), "opening");
	}

	/**
	 * Puts the pre-queue (the users who arrived before {@code opensAt}) in a random
	 * order, before every later arrival: scores {@code opensAt - n .. opensAt - 1} in a
	 * random permutation, a chunk per script. Later arrivals keep their places behind it,
	 * in arrival order.
	 */
	void shuffle(Zone zone, long opensAt) {
		Set<String> users = this.redis.opsForZSet().rangeByScore(zone.queue(), Double.NEGATIVE_INFINITY, opensAt - 1);
		if (users == null || users.isEmpty()) {
			return;
		}
		List<String> order = new ArrayList<>(users);
		java.util.Collections.shuffle(order, ThreadLocalRandom.current());
		long first = opensAt - order.size();
		for (int i = 0; i < order.size(); i += CHUNK) {
			List<String> args = new ArrayList<>();
			for (int j = i; j < Math.min(i + CHUNK, order.size()); j++) {
				args.add(Long.toString(first + j));
				args.add(order.get(j));
			}
			this.redis.execute(SHUFFLE, List.of(zone.queue()), args.toArray());
		}
	}

	/**
	 * What one script call found.
	 *
	 * @param state QUEUED, ADMITTED, PAUSED, SOLD_OUT, CLOSED, or NONE (no place)
	 * @param position 1-based place when queued or paused
	 * @param etaMs estimated wait, -1 when unknown
	 * @param admittedAt admission time (ms) when admitted
	 * @param admittedNow users admitted by this call
	 * @param toldSoldOut a waiting user learned of the sell-out now
	 * @param predictedAt the admission time predicted at the user's join, -1 if none
	 * @param joinedAt the user's join time when predictedAt is set
	 * @param active whether the zone queues
	 * @param queueLength users waiting
	 * @param joined this call gave the user a place
	 */
	record Outcome(String state, long position, long etaMs, long admittedAt, long admittedNow, boolean toldSoldOut,
			long predictedAt, long joinedAt, boolean active, long queueLength, boolean joined) {

	}

}
