package io.couponevent.api.catalog;

import java.time.Instant;

import io.couponevent.api.coupon.Coupon;

/** A coupon as the public and the admin API show it: its state now and the stock left. */
record CouponView(long id, String name, int quantity, long remaining, Instant opensAt, Instant closesAt, String state) {

	static CouponView of(Coupon coupon, long remaining) {
		return new CouponView(coupon.id(), coupon.name(), coupon.quantity(), remaining, coupon.opensAt(),
				coupon.closesAt(), coupon.stateAt(Instant.now(), remaining).name());
	}

}
