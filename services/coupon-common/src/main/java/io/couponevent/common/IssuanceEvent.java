package io.couponevent.common;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * One accepted reservation, published by coupon-api after the Redis Lua script handed out
 * a slot and persisted by coupon-consumer as a row of {@code issued_coupons}. The
 * constructor rejects what the table could never hold, so a malformed event fails
 * deserialization (a poison record).
 *
 * @param eventId unique per reservation, kept in the row for tracing
 * @param couponId the coupon
 * @param userId the JWT subject (1–64 characters)
 * @param slot the reservation's number in {@code 1..quantity}
 * @param reservedAt when Redis accepted the reservation (start of the persist-delay
 * measurement)
 */
public record IssuanceEvent(UUID eventId, long couponId, String userId, int slot, Instant reservedAt) {

	/** Matches {@code issued_coupons.user_id VARCHAR(64)}. */
	public static final int MAX_USER_ID_LENGTH = 64;

	public IssuanceEvent {
		Objects.requireNonNull(eventId, "eventId");
		Objects.requireNonNull(userId, "userId");
		Objects.requireNonNull(reservedAt, "reservedAt");
		if (couponId <= 0) {
			throw new IllegalArgumentException("couponId must be positive, was " + couponId);
		}
		if (userId.isEmpty() || userId.length() > MAX_USER_ID_LENGTH) {
			throw new IllegalArgumentException("userId must have 1.." + MAX_USER_ID_LENGTH + " characters");
		}
		if (slot <= 0) {
			throw new IllegalArgumentException("slot must be positive, was " + slot);
		}
	}

	/**
	 * The Kafka record key, {@code "<couponId>:<userId>"}: spreads one coupon over all
	 * partitions.
	 */
	public String key() {
		return key(couponId, userId);
	}

	public static String key(long couponId, String userId) {
		return couponId + ":" + userId;
	}
}
