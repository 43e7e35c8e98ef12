package io.couponevent.api.catalog;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.couponevent.api.coupon.Coupon;
import io.couponevent.api.coupon.CouponCache;
import io.couponevent.api.coupon.CouponRepository;
import io.couponevent.api.coupon.QuantityBelowIssuedException;
import io.couponevent.api.issuance.IssuanceMetrics;
import io.couponevent.api.issuance.RebuildRequests;
import io.couponevent.api.issuance.Reservation;
import io.couponevent.api.issuance.ReservationStore;
import io.couponevent.api.issuance.ReservationStore.MetaResult;
import io.couponevent.api.window.DeclaredWindow;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Service;

/**
 * Creates and changes coupons: MySQL first (the truth), then Redis, then every instance's
 * cache. A lower quantity is the exception: Redis first, inside MySQL's transaction, so
 * that a lowering Redis refuses (it has handed out higher slots) is never committed in
 * MySQL alone.
 */
@Service
class CouponRegistry {

	private static final Logger log = LoggerFactory.getLogger(CouponRegistry.class);

	private final CouponRepository repository;

	private final ReservationStore store;

	private final CouponCache cache;

	private final RebuildRequests rebuilds;

	private final IssuanceMetrics metrics;

	CouponRegistry(CouponRepository repository, ReservationStore store, CouponCache cache, RebuildRequests rebuilds,
			IssuanceMetrics metrics) {
		this.repository = repository;
		this.store = store;
		this.cache = cache;
		this.rebuilds = rebuilds;
		this.metrics = metrics;
	}

	/**
	 * A higher (or equal) quantity is committed in MySQL, slot rows included, before
	 * Redis may sell it; a lower one is applied in Redis before MySQL deletes the slot
	 * rows above it, and only if Redis has minted no slot number above it. Either way
	 * Redis never sells a slot MySQL has no row for; if the second write fails, Redis
	 * sells less than MySQL allows until the change is retried, never more. Redis refuses
	 * a write older than the version it has, so two changes crossing cannot undo each
	 * other.
	 * @throws QuantityBelowIssuedException when the quantity would drop below a slot
	 * already handed out; nothing is changed then
	 */
	CouponRepository.Upserted upsert(long id, String name, int quantity, DeclaredWindow window) {
		MetaResult[] lowering = new MetaResult[1];
		CouponRepository.Upserted saved = repository.upsert(id, name, quantity, window, (lowered) -> {
			lowering[0] = store.upsertMeta(lowered, false);
			if (lowering[0] == MetaResult.QUANTITY_BELOW_ISSUED) {
				throw belowIssued(id, quantity);
			}
		});
		MetaResult result = saved.lowered() ? lowering[0] : store.upsertMeta(saved.coupon(), saved.created());
		switch (result) {
			// Redis had already handed out more than MySQL's quantity before this change
			// (they disagreed already): MySQL keeps the raise, Redis stays as it is.
			case QUANTITY_BELOW_ISSUED -> throw belowIssued(id, quantity);
			case STATE_MISSING -> {
				log.info("coupon {} has no redis state; the reconciler rebuilds it from MySQL", id);
				rebuilds.request(id);
			}
			case CREATED -> metrics.stockRemaining(id, quantity);
			default -> {
			}
		}
		cache.changed();
		return saved;
	}

	private QuantityBelowIssuedException belowIssued(long id, int quantity) {
		return new QuantityBelowIssuedException(quantity, store.mintedSlots(id));
	}

	Optional<Coupon> setPaused(long id, boolean paused) {
		Optional<Coupon> coupon = repository.setPaused(id, paused);
		coupon.ifPresent(c -> {
			if (store.upsertMeta(c, false) == MetaResult.STATE_MISSING) {
				rebuilds.request(id);
			}
			cache.changed();
		});
		return coupon;
	}

	record Report(long redisIssued, long mysqlRows, long pending, long remaining, boolean consistent) {
	}

	/**
	 * Redis view against MySQL rows; {@code pending} = reservations without a row yet.
	 */
	Report report(Coupon coupon) {
		boolean present = store.stateExists(coupon.id());
		List<Reservation> reservations = present ? store.all(coupon.id()) : List.of();
		long mysqlRows = repository.countIssued(coupon.id());
		Set<String> persisted = repository.issuedUsers(coupon.id(),
				reservations.stream().map(Reservation::userId).toList());
		long pending = reservations.size() - persisted.size();
		long remaining = coupon.quantity() - (present ? reservations.size() : mysqlRows);
		return new Report(reservations.size(), mysqlRows, pending, Math.max(0, remaining),
				present && pending == 0 && reservations.size() == mysqlRows);
	}

	/** Stock left for the public view: Redis when it has the state, MySQL otherwise. */
	long remaining(Coupon coupon) {
		try {
			if (store.stateExists(coupon.id())) {
				return Math.max(0, coupon.quantity() - store.issuedCount(coupon.id()));
			}
		}
		catch (RuntimeException e) {
			log.debug("redis unavailable for the public view: {}", e.toString());
		}
		return Math.max(0, coupon.quantity() - repository.countIssued(coupon.id()));
	}

}
