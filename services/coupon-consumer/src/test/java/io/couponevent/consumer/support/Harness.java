package io.couponevent.consumer.support;

import io.couponevent.common.jdbc.SqlDateTime;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.jdbc.core.JdbcTemplate;

/** Test data on the real harness; every test uses fresh coupon ids, so runs never collide. */
public final class Harness {

    public static final String JWT_SECRET = "local-dev-secret-change-me-0123456789abcdef";

    // The harness keeps its data between runs: ids start from the clock.
    private static final AtomicLong NEXT_COUPON = new AtomicLong(System.currentTimeMillis() * 1000);

    private Harness() {
    }

    public static long newCouponId() {
        return NEXT_COUPON.incrementAndGet();
    }

    /** A coupon with slots {@code 1..quantity}, open for a day, as coupon-api registers it. */
    public static void createCoupon(JdbcTemplate jdbc, long couponId, int quantity) {
        Instant now = Instant.now();
        jdbc.update("INSERT INTO coupons (id, name, quantity, opens_at, closes_at) VALUES (?, ?, ?, ?, ?)",
                couponId, "test " + couponId, quantity, SqlDateTime.of(now.minus(1, ChronoUnit.HOURS)),
                SqlDateTime.of(now.plus(1, ChronoUnit.DAYS)));
        List<Object[]> slots = new ArrayList<>();
        for (int slot = 1; slot <= quantity; slot++) {
            slots.add(new Object[] {couponId, slot});
        }
        jdbc.batchUpdate("INSERT INTO coupon_slots (coupon_id, slot) VALUES (?, ?)", slots);
    }

    public static int rows(JdbcTemplate jdbc, long couponId) {
        Integer n = jdbc.queryForObject("SELECT COUNT(*) FROM issued_coupons WHERE coupon_id = ?", Integer.class,
                couponId);
        return n == null ? 0 : n;
    }

    public static String holderOfSlot(JdbcTemplate jdbc, long couponId, int slot) {
        List<String> users = jdbc.queryForList("SELECT user_id FROM issued_coupons WHERE coupon_id = ? AND slot = ?",
                String.class, couponId, slot);
        return users.isEmpty() ? null : users.getFirst();
    }
}
