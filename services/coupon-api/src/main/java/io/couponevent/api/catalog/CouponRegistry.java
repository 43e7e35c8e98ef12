package io.couponevent.api.catalog;

import java.time.Instant;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Service;

/**
 * Creates and changes coupons: MySQL first (the truth), then Redis, then every instance's
 * cache.
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

	CouponRepository.Upserted upsert(long id, String name, int quantity, Instant opensAt, Instant closesAt) {
		CouponRepository.Upserted saved = repository.upsert(id, name, quantity, opensAt, closesAt);
		MetaResult result = store.upsertMeta(saved.coupon(), saved.created());
		switch (result) {
			case QUANTITY_BELOW_ISSUED -> throw new QuantityBelowIssuedException(quantity);
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
