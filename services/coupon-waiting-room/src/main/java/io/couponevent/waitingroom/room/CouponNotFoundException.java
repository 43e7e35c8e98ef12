package io.couponevent.waitingroom.room;

/** A join for a coupon the API does not know. */
public class CouponNotFoundException extends RuntimeException {

	CouponNotFoundException(long couponId) {
		super("coupon " + couponId + " does not exist");
	}

}
