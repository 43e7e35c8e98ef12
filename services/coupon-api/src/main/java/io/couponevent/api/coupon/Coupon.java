package io.couponevent.api.coupon;

import java.time.Instant;

/** A coupon as MySQL knows it. */
public record Coupon(long id, String name, int quantity, Instant opensAt, Instant closesAt, boolean paused,
		long version) {

	/** The public state at {@code now}, given the stock left. */
	public CouponState stateAt(Instant now, long remaining) {
		if (paused) {
			return CouponState.PAUSED;
		}
		if (now.isBefore(opensAt)) {
			return CouponState.SCHEDULED;
		}
		if (!now.isBefore(closesAt)) {
			return CouponState.CLOSED;
		}
		if (remaining <= 0) {
			return CouponState.SOLD_OUT;
		}
		return CouponState.OPEN;
	}
}
