package io.couponevent.waitingroom.room;

/**
 * The API could not say whether it knows a coupon the room has not seen yet: no zone is
 * made for it until it can.
 */
public class CouponLookupException extends RuntimeException {

	CouponLookupException(long couponId, Throwable cause) {
		super("coupon " + couponId + " cannot be looked up now", cause);
	}

}
