package io.couponevent.api.reconcile;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.couponevent.api.config.IssuanceProperties;
import io.couponevent.api.config.ReconcilerProperties;
import io.couponevent.api.coupon.Coupon;
import io.couponevent.api.coupon.CouponCache;
import io.couponevent.api.coupon.CouponRepository;
import io.couponevent.api.coupon.IssuedRow;
import io.couponevent.api.issuance.IssuanceMetrics;
import io.couponevent.api.issuance.RebuildRequests;
import io.couponevent.api.issuance.Reservation;
import io.couponevent.api.issuance.ReservationStore;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

/**
 * Brings Redis back in line with MySQL, the source of truth. One instance at a time
 * (Redis lease).
 * <ul>
 * <li>lost state (Redis restarted or flushed): rebuilt from MySQL once every send that
 * could still be in flight has timed out and the consumer has processed every record sent
 * until then — never treated as fresh stock;</li>
 * <li>stale reservations (the process died between reserve and send): released once they
 * were last sent more than {@code stale-after} before a moment up to which the consumer
 * has processed every record, and are absent from MySQL;</li>
 * <li>held slots (a compensated send that may still land): settled at once when MySQL
 * holds the slot (dropped, its row adopted) or its user's row under another slot (the
 * slot is free again: the record is that user's second), else released once stale;</li>
 * <li>rows Redis does not know (a compensated send that still landed): adopted; a user
 * whose retry holds another slot than the landed row is repointed to MySQL's slot.</li>
 * </ul>
 * "Processed up to a moment" is judged against an offset barrier, not a lag of exactly 0,
 * which steady traffic (or one user repeating a won request: each 409 sends again) never
 * shows: the topic's end offsets are read at one pass, and once the group has committed
 * past them (at a later pass), every record sent before that pass is in MySQL or
 * dead-lettered. A pass that finds no lag needs no earlier one.
 */
@Component
class Reconciler {

	private static final Logger log = LoggerFactory.getLogger(Reconciler.class);

	private final CouponCache coupons;

	private final CouponRepository repository;

	private final ReservationStore store;

	private final ConsumerLag lag;

	private final RedisLock lock;

	private final RebuildRequests rebuilds;

	private final IssuanceMetrics metrics;

	private final ReconcilerProperties properties;

	private final Duration inFlightGrace;

	private final Map<Long, Instant> missingSince = new ConcurrentHashMap<>();

	/**
	 * End offsets read at an earlier pass, and when: the barrier the consumer group has
	 * yet to commit past.
	 */
	private record Barrier(Map<TopicPartition, Long> ends, Instant takenAt) {
	}

	private volatile Barrier barrier;

	Reconciler(CouponCache coupons, CouponRepository repository, ReservationStore store, ConsumerLag lag,
			RedisLock lock, RebuildRequests rebuilds, IssuanceMetrics metrics, ReconcilerProperties properties,
			IssuanceProperties issuance) {
		this.coupons = coupons;
		this.repository = repository;
		this.store = store;
		this.lag = lag;
		this.lock = lock;
		this.rebuilds = rebuilds;
		this.metrics = metrics;
		this.properties = properties;
		this.inFlightGrace = inFlightGrace(issuance, properties);
	}

	/**
	 * How long after lost state is found every send that was in flight has ended: the
	 * producer's delivery timeout and a second. Refuses a {@code stale-after} shorter
	 * than that timeout plus the commit lag: a held record could then land after its slot
	 * went to another user.
	 */
	static Duration inFlightGrace(IssuanceProperties issuance, ReconcilerProperties reconciler) {
		Duration least = issuance.deliveryTimeout().plus(reconciler.commitLag());
		if (reconciler.staleAfter().compareTo(least) < 0) {
			throw new IllegalStateException("coupon.reconciler.stale-after (" + reconciler.staleAfter()
					+ ") must be at least coupon.issuance.delivery-timeout + coupon.reconciler.commit-lag (" + least
					+ ")");
		}
		return issuance.deliveryTimeout().plusSeconds(1);
	}

	/**
	 * One pass over every coupon; returns false when another instance holds the lease.
	 */
	boolean runOnce() {
		if (!lock.tryAcquire(properties.lockTtl())) {
			return false;
		}
		try {
			Instant settled = settledUntil();
			for (Coupon coupon : List.copyOf(coupons.all())) {
				try {
					reconcile(coupon, settled);
				}
				catch (RuntimeException e) {
					log.warn("reconciling coupon {} failed: {}", coupon.id(), e.toString());
				}
			}
			return true;
		}
		finally {
			lock.release();
		}
	}

	/**
	 * A moment before which every record sent is in MySQL or dead-lettered, or
	 * {@code null} when none is known yet: now when the group has no lag, else the
	 * barrier of an earlier pass once the group has committed past it. A new barrier is
	 * read whenever the last one is passed.
	 */
	private Instant settledUntil() {
		Instant now = Instant.now();
		ConsumerLag.Offsets offsets;
		try {
			offsets = lag.offsets();
		}
		catch (IllegalStateException e) {
			log.debug("consumer offsets unknown: {}", e.getMessage());
			return null;
		}
		Barrier previous = this.barrier;
		boolean passed = previous != null && offsets.committedPast(previous.ends());
		if (previous == null || passed) {
			this.barrier = new Barrier(offsets.ends(), now);
		}
		if (offsets.committedPast(offsets.ends())) {
			return now;
		}
		return passed ? previous.takenAt() : null;
	}

	private void reconcile(Coupon cached, Instant settled) {
		long id = cached.id();
		Instant now = Instant.now();
		if (!store.stateExists(id)) {
			Instant since = missingSince.computeIfAbsent(id, k -> now);
			// Sends in flight when the state was lost are over by since + grace: their
			// records must be behind the barrier.
			if (Repairs.rebuildDue(settled, since, this.inFlightGrace)) {
				Coupon coupon = repository.find(id).orElse(cached);
				List<IssuedRow> rows = repository.findAllIssued(id);
				if (store.restore(coupon, rows)) {
					log.info("rebuilt the redis state of coupon {} from {} MySQL rows", id, rows.size());
					metrics.reconcilerAction("rebuild", 1);
				}
				missingSince.remove(id);
				rebuilds.clear(id);
				metrics.stockRemaining(id, coupon.quantity() - rows.size());
			}
			return;
		}
		missingSince.remove(id);
		long redisCount = store.issuedCount(id);
		metrics.stockRemaining(id, cached.quantity() - redisCount);
		if (settled == null) {
			// The consumer's progress is unknown (a broker lost, its offsets unreadable)
			// or behind the barrier: nothing can be judged stale. A held slot is settled
			// by what MySQL already shows, which needs no barrier: otherwise an outage
			// that holds the barrier holds the slots, and the event's last users are
			// answered "try again" until the broker is back.
			if (store.heldCount(id) > 0) {
				compare(id, null);
			}
			return;
		}
		// Equal counts can still hide a lost slot number (a user repointed by a late
		// record), which would strand one unit at the end of the event: the slot
		// bookkeeping check finds it. They also hide a held slot whose send landed (its
		// placeholder stands where the row's user belongs), which would answer the last
		// users "try again" where the answer is "sold out".
		if (redisCount == repository.countIssued(id) && store.lostSlots(id) == 0 && store.heldCount(id) == 0) {
			return;
		}
		compare(id, settled);
	}

	/**
	 * Counts differ while every record sent before {@code settled} is processed: apply
	 * the {@link Repairs#plan repairs} of stale reservations, held slots and unknown
	 * rows. With {@code settled} null only what MySQL decides alone: held slots, repoints
	 * and adoptions, no stale release.
	 */
	private void compare(long id, Instant settled) {
		// Sent (or re-sent) this long before the barrier: any record of it is behind it.
		// No barrier: nothing is stale.
		Instant staleBefore = settled == null ? null : settled.minus(properties.staleAfter());
		List<Repairs.Repair> repairs = Repairs.plan(store.all(id), repository.findAllIssued(id), staleBefore);
		long released = 0;
		long releasedHeld = 0;
		long repointed = 0;
		long adopted = 0;
		for (Repairs.Repair repair : repairs) {
			switch (repair) {
				// A stale reservation, or a held slot whose send did not land: back into
				// circulation (or dropped when MySQL uses the slot: the landed row is
				// adopted). Only the reservation as read: one a 409 re-sent since then
				// stays.
				case Repairs.Release(Reservation r, boolean reuseSlot) -> {
					if (store.release(id, r, reuseSlot)) {
						if (r.held()) {
							releasedHeld++;
						}
						else {
							released++;
							metrics.compensation("stale");
						}
					}
				}
				// The user retried after a compensated send that landed after all:
				// MySQL's
				// slot wins, the retry's slot is free again (its record was refused as
				// the
				// user's second, or will be). At once, not after stale-after: until then
				// the unit looks taken twice, and the last users would be told "sold out"
				// while it was coming back.
				case Repairs.Repoint(Reservation r, IssuedRow row, boolean reuseSlot) -> {
					if (store.release(id, r, reuseSlot) && store.adopt(id, row)) {
						repointed++;
					}
				}
				case Repairs.Adopt(IssuedRow row) -> {
					if (store.adopt(id, row)) {
						adopted++;
					}
				}
			}
		}
		if (released + releasedHeld + adopted + repointed > 0) {
			log.info("coupon {}: released {} stale reservations and {} held slots, adopted {} rows, repointed {} users",
					id, released, releasedHeld, adopted, repointed);
		}
		metrics.reconcilerAction("release_stale", released);
		metrics.reconcilerAction("release_held", releasedHeld);
		metrics.reconcilerAction("adopt_row", adopted);
		metrics.reconcilerAction("repoint_user", repointed);
	}

	boolean rebuildRequested() {
		return rebuilds.any();
	}

}
