package io.couponevent.api.web;

import java.time.Instant;

import io.couponevent.api.coupon.Coupon;
import io.couponevent.api.coupon.CouponCache;
import io.couponevent.api.coupon.CouponId;
import io.couponevent.api.coupon.CouponRegistry;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** Public coupon information, no token needed. */
@RestController
public class CouponController {

    private final CouponCache coupons;
    private final CouponRegistry registry;

    public CouponController(CouponCache coupons, CouponRegistry registry) {
        this.coupons = coupons;
        this.registry = registry;
    }

    public record CouponView(long id, String name, int quantity, long remaining, Instant opensAt, Instant closesAt,
            String state) {

        static CouponView of(Coupon coupon, long remaining) {
            return new CouponView(coupon.id(), coupon.name(), coupon.quantity(), remaining, coupon.opensAt(),
                    coupon.closesAt(), coupon.stateAt(Instant.now(), remaining).name());
        }
    }

    @GetMapping("/api/v1/coupons/{couponId}")
    public CouponView coupon(@PathVariable("couponId") String couponId) {
        long id = CouponId.parse(couponId);
        Coupon coupon = coupons.get(id).orElseThrow(() -> ApiException.couponNotFound(id));
        return CouponView.of(coupon, registry.remaining(coupon));
    }
}
