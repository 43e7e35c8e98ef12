package io.couponevent.api.coupon;

public enum CouponState {

	SCHEDULED, OPEN, PAUSED, SOLD_OUT, CLOSED

}
