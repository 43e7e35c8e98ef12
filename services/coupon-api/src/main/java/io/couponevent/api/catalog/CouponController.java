package io.couponevent.api.catalog;

import io.couponevent.api.coupon.Coupon;
import io.couponevent.api.coupon.CouponCache;
import io.couponevent.api.coupon.CouponId;
import io.couponevent.api.coupon.CouponNotFoundException;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** Public coupon information, no token needed. */
@RestController
class CouponController {

	private final CouponCache coupons;

	private final CouponRegistry registry;

	CouponController(CouponCache coupons, CouponRegistry registry) {
		this.coupons = coupons;
		this.registry = registry;
	}

	@GetMapping("/api/v1/coupons/{couponId}")
	public CouponView coupon(@PathVariable("couponId") String couponId) {
		long id = CouponId.parse(couponId);
		Coupon coupon = coupons.get(id).orElseThrow(() -> new CouponNotFoundException(id));
		return CouponView.of(coupon, registry.remaining(coupon));
	}

}
