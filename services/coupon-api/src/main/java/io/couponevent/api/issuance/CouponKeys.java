package io.couponevent.api.issuance;

import java.util.List;

/**
 * Redis keys of one coupon. The hash tag {@code {coupon:<id>}} puts them all in one cluster slot, so
 * a single Lua script can read and write them atomically.
 */
public record CouponKeys(long couponId) {

    public String meta() { return tag() + ":meta"; }

    public String issued() { return tag() + ":issued"; }

    public String next() { return tag() + ":next"; }

    public String free() { return tag() + ":free"; }

    public List<String> all() { return List.of(meta(), issued(), next(), free()); }

    private String tag() { return "{coupon:" + couponId + "}"; }
}
