package io.couponevent.api.issuance;

import java.time.Duration;
import java.time.Instant;

import io.couponevent.api.coupon.Coupon;
import io.couponevent.api.coupon.CouponCache;
import io.couponevent.api.coupon.CouponNotFoundException;
import io.couponevent.api.coupon.CouponRepository;
import io.couponevent.api.coupon.IssuedRow;
import io.couponevent.api.issuance.IssuancePublisher.SendFailedException;
import io.couponevent.api.issuance.IssuanceRefusedException.Refusal;
import io.couponevent.common.entry.EntryGate;
import io.couponevent.common.entry.EntryProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.dao.DataAccessException;
import org.springframework.stereotype.Service;

/**
 * The issuance hot path: one Lua call on Redis, then one Kafka send; a failed send is
 * compensated so no stock is stranded. MySQL is not touched here.
 */
@Service
public class IssuanceService {

	private static final Logger log = LoggerFactory.getLogger(IssuanceService.class);

	private final CouponCache coupons;

	private final ReservationStore store;

	private final IssuancePublisher publisher;

	private final IssuanceMetrics metrics;

	private final RebuildRequests rebuilds;

	private final CouponRepository repository;

	/** Null when no waiting room is wired: gates are ignored. */
	private final EntryGate entryGate;

	private final long redisTimeoutMs;

	IssuanceService(CouponCache coupons, ReservationStore store, IssuancePublisher publisher, IssuanceMetrics metrics,
			RebuildRequests rebuilds, CouponRepository repository, EntryProperties entry, DataRedisProperties redis) {
		this.coupons = coupons;
		this.store = store;
		this.publisher = publisher;
		this.metrics = metrics;
		this.rebuilds = rebuilds;
		this.repository = repository;
		this.entryGate = entry.enabled() ? new EntryGate(entry.secret()) : null;
		Duration timeout = redis.getTimeout() == null ? Duration.ofSeconds(60) : redis.getTimeout();
		this.redisTimeoutMs = timeout.toMillis();
	}

	public record Accepted(long couponId, String userId, int slot, Instant reservedAt) {
	}

	/**
	 * @param entryToken the {@code Coupon-Entry-Token} header, or null
	 */
	public Accepted issue(long couponId, String userId, String entryToken) {
		long start = System.nanoTime();
		if (coupons.get(couponId).isEmpty()) {
			metrics.record(couponId, "not_found", start);
			throw new CouponNotFoundException(couponId);
		}
		// The HMAC is checked only when a token is sent; without a waiting room every
		// request counts as admitted, so a stray gate key can never lock users out.
		boolean admitted = entryGate == null
				|| (entryToken != null && entryGate.admits(entryToken, userId, couponId, Instant.now()));
		Decision decision;
		try {
			decision = store.reserve(couponId, userId, System.currentTimeMillis() + redisTimeoutMs, admitted);
		}
		catch (DataAccessException e) {
			metrics.record(couponId, "shed", start);
			log.warn("redis unavailable for coupon {}: {}", couponId, e.toString());
			throw new IssuanceUnavailableException("the coupon store is unavailable, try again shortly");
		}
		switch (decision.outcome()) {
			case ACCEPTED -> {
				try {
					publisher.send(couponId, userId, decision.slot(), decision.reservedAt());
				}
				catch (SendFailedException e) {
					compensate(couponId, new Reservation(userId, decision.slot(), decision.reservedAt()), e);
					metrics.record(couponId, "shed", start);
					throw new IssuanceUnavailableException("the issuance could not be recorded, try again shortly");
				}
				metrics.stockRemaining(couponId, decision.remaining());
				metrics.record(couponId, "accepted", start);
				return new Accepted(couponId, userId, decision.slot(), decision.reservedAt());
			}
			case STATE_MISSING -> {
				rebuilds.request(couponId);
				metrics.record(couponId, "shed", start);
				throw new IssuanceUnavailableException("the coupon's state is being recovered, try again shortly");
			}
			case STOCK_HELD -> {
				metrics.record(couponId, "shed", start);
				throw new IssuanceUnavailableException(
						"the last coupons are held while unconfirmed sends settle, try again shortly");
			}
			case UNREPLICATED -> {
				// A master that died now would take the reservation along: not answered
				// 202, given back.
				metrics.record(couponId, "shed", start);
				throw new IssuanceUnavailableException("the coupon store could not replicate the issuance, try again");
			}
			case EXPIRED -> {
				// Only a replay reaches this; its caller was already answered 503.
				metrics.record(couponId, "shed", start);
				throw new IssuanceUnavailableException("the coupon store answered too late, try again shortly");
			}
			case ENTRY_REQUIRED -> {
				metrics.record(couponId, "entry_required", start);
				throw new IssuanceRefusedException(Refusal.ENTRY_REQUIRED);
			}
			case NOT_OPEN -> {
				metrics.record(couponId, "not_open", start);
				throw new IssuanceRefusedException(Refusal.NOT_OPEN_YET);
			}
			case CLOSED -> {
				metrics.record(couponId, "closed", start);
				throw new IssuanceRefusedException(Refusal.CLOSED);
			}
			case PAUSED -> {
				metrics.record(couponId, "paused", start);
				throw new IssuanceRefusedException(Refusal.PAUSED);
			}
			case DUPLICATE -> {
				resendHeld(couponId, userId, decision, start);
				metrics.record(couponId, "duplicate", start);
				throw new IssuanceRefusedException(Refusal.ALREADY_ISSUED);
			}
			case SOLD_OUT -> {
				metrics.stockRemaining(couponId, 0);
				metrics.record(couponId, "sold_out", start);
				throw new IssuanceRefusedException(Refusal.SOLD_OUT);
			}
			default -> throw new IllegalStateException(decision.toString());
		}
	}

	/**
	 * A 409 tells the user they hold the coupon, so its record must reach MySQL. A
	 * reservation can be in Redis without a record on its way: the reserve call timed out
	 * on the client after the script ran, or a compensation could not reach Redis. So the
	 * 409 path sends the held reservation again (the script's duplicate answer carries
	 * its slot and time; the consumer treats the same user twice as a duplicate) and
	 * answers 503 if that send fails.
	 */
	private void resendHeld(long couponId, String userId, Decision held, long start) {
		try {
			publisher.send(couponId, userId, held.slot(), held.reservedAt());
		}
		catch (SendFailedException e) {
			// The reservation stays; the reconciler releases it if no record ever lands.
			metrics.record(couponId, "shed", start);
			log.warn("could not confirm the reservation of user {} on coupon {}: {}", userId, couponId, e.toString());
			throw new IssuanceUnavailableException("the issuance could not be confirmed, try again shortly");
		}
	}

	/**
	 * Only this reservation as the script made it: if a second request of the user was
	 * answered 409 meanwhile, its re-send stamped the reservation, and it stays.
	 */
	private void compensate(long couponId, Reservation mine, SendFailedException cause) {
		String userId = mine.userId();
		log.warn("send failed for coupon {} user {} slot {}, {} the reservation: {}", couponId, userId, mine.slot(),
				cause.mayHaveLanded() ? "holding the slot of" : "releasing",
				cause.getCause() == null ? cause.toString() : cause.getCause().toString());
		try {
			// A record that may still land keeps its slot held (see
			// ReservationStore.hold): handing the slot to another user would make that
			// user's record collide in MySQL, a lost 202.
			if (cause.mayHaveLanded()) {
				store.hold(couponId, mine);
			}
			else {
				store.release(couponId, mine, true);
			}
			metrics.compensation(cause.reason());
		}
		catch (DataAccessException e) {
			// The reconciler releases it later (stale reservation, absent from MySQL, no
			// consumer lag). One line, no stack trace: under overload this fires per
			// request, and logging is CPU.
			log.error("compensation failed for coupon {} user {}; left to the reconciler: {}", couponId, userId,
					e.toString());
			metrics.compensation("deferred");
		}
	}

	public enum Status {

		PENDING, ISSUED, NONE

	}

	public record UserStatus(Status status, Instant issuedAt) {
	}

	/**
	 * ISSUED from MySQL (one indexed lookup), else PENDING when Redis holds the
	 * reservation, else NONE.
	 */
	public UserStatus status(long couponId, String userId) {
		Coupon coupon = coupons.get(couponId).orElseThrow(() -> new CouponNotFoundException(couponId));
		var row = repository.findIssued(coupon.id(), userId);
		if (row.isPresent()) {
			IssuedRow issued = row.get();
			return new UserStatus(Status.ISSUED, issued.issuedAt());
		}
		try {
			return store.find(couponId, userId).isPresent() ? new UserStatus(Status.PENDING, null)
					: new UserStatus(Status.NONE, null);
		}
		catch (DataAccessException e) {
			throw new IssuanceUnavailableException("the coupon store is unavailable, try again shortly");
		}
	}

}
