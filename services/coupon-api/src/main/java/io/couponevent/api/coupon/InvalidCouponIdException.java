package io.couponevent.api.coupon;

/**
 * A {@code couponId} that is not a positive 64-bit integer: the client's mistake, never a
 * server fault.
 */
public class InvalidCouponIdException extends RuntimeException {

	InvalidCouponIdException(String message) {
		super(message);
	}

}
