package io.couponevent.api.coupon;

import java.time.Instant;

/** One row of {@code issued_coupons}. */
public record IssuedRow(String userId, int slot, Instant reservedAt, Instant issuedAt) {
}
