package io.couponevent.api.coupon;

/** No coupon with this id exists. */
public class CouponNotFoundException extends RuntimeException {

	private final long couponId;

	public CouponNotFoundException(long couponId) {
		super("no coupon " + couponId);
		this.couponId = couponId;
	}

	public long couponId() {
		return this.couponId;
	}

}
