package io.couponevent.api.issuance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import io.couponevent.api.coupon.Coupon;
import io.couponevent.api.coupon.IssuedRow;
import io.couponevent.common.ClasspathText;
import io.couponevent.common.redis.KeyPrefix;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

/**
 * Redis side of the issuance: the Lua scripts (sent by EVALSHA; Spring Data Redis falls
 * back to EVAL, which loads the script again, when a node answers NOSCRIPT) and a few
 * plain reads.
 */
@Component
public class ReservationStore {

	@SuppressWarnings({ "rawtypes", "unchecked" })
	private static final RedisScript<List> ISSUE = RedisScript.of(ClasspathText.read("scripts/issue.lua"), List.class);

	private static final RedisScript<Long> RELEASE = RedisScript.of(ClasspathText.read("scripts/release.lua"),
			Long.class);

	private static final RedisScript<Long> UPSERT_META = RedisScript.of(ClasspathText.read("scripts/upsert-meta.lua"),
			Long.class);

	private static final RedisScript<Long> RESTORE_BEGIN = RedisScript
		.of(ClasspathText.read("scripts/restore-begin.lua"), Long.class);

	private static final RedisScript<Long> RESTORE_ADD = RedisScript.of(ClasspathText.read("scripts/restore-chunk.lua"),
			Long.class);

	private static final RedisScript<Long> RESTORE_END = RedisScript.of(ClasspathText.read("scripts/restore-end.lua"),
			Long.class);

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> SLOTS = RedisScript.of(ClasspathText.read("scripts/slots.lua"), List.class);

	private static final RedisScript<Long> ADOPT = RedisScript.of(ClasspathText.read("scripts/adopt.lua"), Long.class);

	private static final Duration TOOL_DEADLINE = Duration.ofSeconds(5);

	/** Rows or free slots per script call of a rebuild. */
	static final int RESTORE_CHUNK = 1000;

	/**
	 * How long a rebuild may take before another may take over (its remaining calls then
	 * do nothing).
	 */
	private static final Duration RESTORE_TTL = Duration.ofMinutes(10);

	private final StringRedisTemplate redis;

	private final ReplicaAcks replicaAcks;

	private final String keyPrefix;

	/**
	 * @param replicaAcks replicas that must hold a reservation before it is accepted
	 * ({@code coupon.issuance.replica-acks}, default 1; 0 for a Redis without replicas)
	 * @param keyPrefix put before every key ({@code coupon.redis.key-prefix}, see
	 * {@link KeyPrefix})
	 */
	@Autowired
	public ReservationStore(StringRedisTemplate redis, @Value("${coupon.issuance.replica-acks:1}") int replicaAcks,
			@Value(KeyPrefix.PROPERTY) String keyPrefix) {
		if (replicaAcks < 0) {
			throw new IllegalArgumentException("coupon.issuance.replica-acks must not be negative");
		}
		this.redis = redis;
		this.replicaAcks = new ReplicaAcks(redis, replicaAcks);
		this.keyPrefix = KeyPrefix.of(keyPrefix);
	}

	/** A store that waits for one replica, without a key prefix. */
	public ReservationStore(StringRedisTemplate redis) {
		this(redis, 1, "");
	}

	private CouponKeys keys(long couponId) {
		return new CouponKeys(keyPrefix, couponId);
	}

	/**
	 * The hot path: one script call decides and records the reservation, which counts
	 * only once a replica holds it (Redis {@code WAIT}, see {@link ReplicaAcks}): a
	 * master that died with it unreplicated would roll {@code next} back, and the slot
	 * number, already sent to Kafka, would be minted again. One that no replica confirmed
	 * by the deadline is given back ({@code UNREPLICATED}); if the master dies meanwhile,
	 * both went together.
	 * @param deadlineMs epoch millisecond after which the caller no longer waits: a call
	 * that reaches Redis later (replayed by the client after a failover) reserves nothing
	 * @param entryAdmitted whether the request carries an entry token for this user and
	 * coupon (needed only while the waiting room's gate is on)
	 */
	@SuppressWarnings("unchecked")
	public Decision reserve(long couponId, String userId, long deadlineMs, boolean entryAdmitted) {
		CouponKeys keys = keys(couponId);
		List<Long> reply = redis.execute(ISSUE, keys.issue(), userId, Long.toString(deadlineMs),
				entryAdmitted ? "1" : "0");
		Decision decision = Decision.of(reply);
		if (decision.outcome() == Decision.Outcome.ACCEPTED && !replicaAcks.confirm(keys.meta(), deadlineMs)) {
			release(couponId, new Reservation(userId, decision.slot(), decision.reservedAt()), true);
			return decision.unreplicated();
		}
		return decision;
	}

	/**
	 * A reservation with no entry token and a deadline a few seconds away (tools and
	 * tests).
	 */
	public Decision reserve(long couponId, String userId) {
		return reserve(couponId, userId, System.currentTimeMillis() + TOOL_DEADLINE.toMillis(), false);
	}

	/**
	 * Compensation of a send that may still land: the user is removed (a retry is a new
	 * attempt), but the unit and the slot number stay taken under a placeholder until the
	 * reconciler has compared with MySQL, so a late record can never collide with another
	 * user's reservation of that slot.
	 */
	public boolean hold(long couponId, Reservation reservation) {
		return runRelease(couponId, reservation, "hold",
				Reservation.heldField(reservation.slot(), reservation.userId()));
	}

	/**
	 * Slot numbers minted but neither held by an entry nor free: each strands one unit of
	 * stock. Negative when entries and free slots outnumber the slot numbers minted:
	 * {@code next} fell behind (a row adopted past it, or a failover that lost writes),
	 * and the issue script would mint a number already in use.
	 */
	public long lostSlots(long couponId) {
		Slots slots = slots(couponId);
		return slots.next() - slots.issued() - slots.free();
	}

	/**
	 * The slot bookkeeping of a coupon, read atomically.
	 *
	 * @param issued entries of the issued hash (users and held placeholders)
	 * @param free slot numbers on the free list
	 * @param next slot numbers minted (the highest one)
	 */
	public record Slots(long issued, long free, long next) {
	}

	/**
	 * The coupon's entries, free slots and minted slot numbers, in one script call.
	 */
	@SuppressWarnings("unchecked")
	public Slots slots(long couponId) {
		CouponKeys keys = keys(couponId);
		List<Long> reply = redis.execute(SLOTS, List.of(keys.issued(), keys.free(), keys.next()));
		if (reply == null || reply.size() < 3) {
			return new Slots(0, 0, 0);
		}
		return new Slots(reply.get(0), reply.get(1), reply.get(2));
	}

	/**
	 * Gives a reservation back: stock +1, user removed, slot to the free list (if
	 * {@code reuseSlot}).
	 */
	public boolean release(long couponId, Reservation reservation, boolean reuseSlot) {
		return runRelease(couponId, reservation, reuseSlot ? "1" : "0");
	}

	/**
	 * {@code scripts/release.lua}: acts only when Redis still holds exactly this
	 * reservation (not one sent again by a 409 since it was read); true when it acted.
	 */
	private boolean runRelease(long couponId, Reservation reservation, String... modeAndPlaceholder) {
		CouponKeys keys = keys(couponId);
		List<Object> args = new ArrayList<>(List.of(reservation.userId(), reservation.encoded()));
		args.addAll(List.of(modeAndPlaceholder));
		return ran(redis.execute(RELEASE, List.of(keys.meta(), keys.issued(), keys.free()), args.toArray()));
	}

	public enum MetaResult {

		UPDATED, CREATED, STATE_MISSING, QUANTITY_BELOW_ISSUED

	}

	/**
	 * Writes the metadata; {@code fresh} starts an empty state when the coupon is new in
	 * MySQL.
	 */
	public MetaResult upsertMeta(Coupon coupon, boolean fresh) {
		CouponKeys keys = keys(coupon.id());
		Long result = redis.execute(UPSERT_META, keys.all(), Integer.toString(coupon.quantity()),
				Long.toString(coupon.opensAt().toEpochMilli()), Long.toString(coupon.closesAt().toEpochMilli()),
				coupon.paused() ? "1" : "0", Long.toString(coupon.version()), fresh ? "1" : "0");
		return switch (result == null ? 0 : result.intValue()) {
			case 1 -> MetaResult.UPDATED;
			case 2 -> MetaResult.CREATED;
			case -1 -> MetaResult.QUANTITY_BELOW_ISSUED;
			default -> MetaResult.STATE_MISSING;
		};
	}

	/**
	 * Rebuilds lost state from MySQL rows; a no-op when the state exists. Sent in calls
	 * of at most {@link #RESTORE_CHUNK} rows or free slots, meta last (see
	 * {@code scripts/restore-begin.lua}).
	 * @return true when this call rebuilt the state
	 */
	public boolean restore(Coupon coupon, Collection<IssuedRow> rows) {
		String token = beginRestore(coupon.id());
		if (token == null) {
			return false;
		}
		int next = rows.stream().mapToInt(IssuedRow::slot).max().orElse(0);
		boolean[] used = new boolean[next + 1];
		rows.forEach(r -> used[r.slot()] = true);
		List<String> chunk = new ArrayList<>();
		for (int slot = 1; slot <= next; slot++) {
			if (!used[slot]) {
				chunk.add(Integer.toString(slot));
				if (chunk.size() == RESTORE_CHUNK && !restoreChunk(coupon.id(), token, "free", chunk)) {
					return false;
				}
			}
		}
		if (!chunk.isEmpty() && !restoreChunk(coupon.id(), token, "free", chunk)) {
			return false;
		}
		for (IssuedRow row : rows) {
			chunk.add(row.userId());
			chunk.add(new Reservation(row.userId(), row.slot(), row.reservedAt()).encoded());
			if (chunk.size() == 2 * RESTORE_CHUNK && !restoreChunk(coupon.id(), token, "issued", chunk)) {
				return false;
			}
		}
		if (!chunk.isEmpty() && !restoreChunk(coupon.id(), token, "issued", chunk)) {
			return false;
		}
		CouponKeys keys = keys(coupon.id());
		return ran(redis.execute(RESTORE_END, List.of(keys.meta(), keys.next(), keys.rebuild()), token,
				Integer.toString(coupon.quantity()), Long.toString(coupon.opensAt().toEpochMilli()),
				Long.toString(coupon.closesAt().toEpochMilli()), coupon.paused() ? "1" : "0",
				Long.toString(coupon.version()), Integer.toString(next)));
	}

	/** Starts a rebuild: its token, or {@code null} when the state exists. */
	String beginRestore(long couponId) {
		CouponKeys keys = keys(couponId);
		String token = UUID.randomUUID().toString();
		List<String> begin = List.of(keys.meta(), keys.issued(), keys.next(), keys.free(), keys.rebuild());
		return ran(redis.execute(RESTORE_BEGIN, begin, token, Long.toString(RESTORE_TTL.toMillis()))) ? token : null;
	}

	/**
	 * Sends one chunk ({@code "free"} slots or {@code "issued"} user, value pairs) and
	 * empties it; false when the rebuild is no longer this one's.
	 */
	boolean restoreChunk(long couponId, String token, String kind, List<String> chunk) {
		CouponKeys keys = keys(couponId);
		List<Object> args = new ArrayList<>(chunk.size() + 2);
		args.add(token);
		args.add(kind);
		args.addAll(chunk);
		chunk.clear();
		return ran(redis.execute(RESTORE_ADD, List.of(keys.meta(), keys.issued(), keys.free(), keys.rebuild()),
				args.toArray()));
	}

	private static boolean ran(Long result) {
		return result != null && result == 1;
	}

	/**
	 * Marks a MySQL row that Redis misses as issued, and raises {@code next} to its slot
	 * when it is behind (see {@code scripts/adopt.lua}).
	 */
	public boolean adopt(long couponId, IssuedRow row) {
		CouponKeys keys = keys(couponId);
		return ran(redis.execute(ADOPT, List.of(keys.meta(), keys.issued(), keys.free(), keys.next()), row.userId(),
				Integer.toString(row.slot()), Long.toString(row.reservedAt().toEpochMilli())));
	}

	/**
	 * How many slot numbers were handed out (the highest one): a quantity below it is
	 * refused.
	 */
	public long mintedSlots(long couponId) {
		String next = redis.opsForValue().get(keys(couponId).next());
		return next == null ? 0 : Long.parseLong(next);
	}

	public boolean stateExists(long couponId) {
		return Boolean.TRUE.equals(redis.hasKey(keys(couponId).meta()));
	}

	public Optional<Reservation> find(long couponId, String userId) {
		Object value = redis.opsForHash().get(keys(couponId).issued(), userId);
		return Optional.ofNullable(value).map(v -> Reservation.parse(userId, v.toString()));
	}

	/**
	 * Held slots' placeholders (meta {@code held}): units neither free nor sold until the
	 * reconciler settles them.
	 */
	public long heldCount(long couponId) {
		Object held = redis.opsForHash().get(keys(couponId).meta(), "held");
		return held == null ? 0 : Long.parseLong(held.toString());
	}

	public long issuedCount(long couponId) {
		Long size = redis.opsForHash().size(keys(couponId).issued());
		return size == null ? 0 : size;
	}

	/**
	 * Every reservation of a coupon, read with HSCAN so a big hash never blocks Redis.
	 */
	public List<Reservation> all(long couponId) {
		List<Reservation> all = new ArrayList<>();
		try (Cursor<Map.Entry<Object, Object>> cursor = redis.opsForHash()
			.scan(keys(couponId).issued(), ScanOptions.scanOptions().count(1000).build())) {
			cursor.forEachRemaining(e -> all.add(Reservation.parse(e.getKey().toString(), e.getValue().toString())));
		}
		return all;
	}

}
