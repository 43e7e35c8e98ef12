package io.couponevent.api.reconcile;

import io.couponevent.api.config.CatalogProperties;
import io.couponevent.api.coupon.CouponCache;
import io.couponevent.api.job.CatalogRegistration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/** What a serving instance does in the background; hook jobs ({@code coupon.job}) skip all of it. */
@Configuration
@EnableScheduling
@ConditionalOnProperty(name = "coupon.job", havingValue = "none", matchIfMissing = true)
public class BackgroundTasks {

    private static final Logger log = LoggerFactory.getLogger(BackgroundTasks.class);

    private final CouponCache cache;
    private final Reconciler reconciler;
    private final CatalogRegistration registration;
    private final CatalogProperties catalog;
    private final boolean reconcilerEnabled;
    private final java.time.Duration interval;
    private long lastRun = System.nanoTime();

    public BackgroundTasks(CouponCache cache, Reconciler reconciler, CatalogRegistration registration,
            CatalogProperties catalog, io.couponevent.api.config.ReconcilerProperties reconcilerProperties) {
        this.cache = cache;
        this.reconciler = reconciler;
        this.registration = registration;
        this.catalog = catalog;
        this.reconcilerEnabled = reconcilerProperties.enabled();
        this.interval = reconcilerProperties.interval();
    }

    @EventListener(ApplicationReadyEvent.class)
    public void registerConfiguredCoupons() {
        if (catalog.registerOnStart() && !catalog.coupons().isEmpty()) {
            try {
                registration.registerAll();
            } catch (RuntimeException e) {
                log.warn("registering the configured coupons at start failed: {}", e.toString());
            }
        }
    }

    @Scheduled(fixedDelay = 1000, initialDelay = 1000)
    public void refreshCache() {
        try {
            cache.refreshIfChanged();
        } catch (RuntimeException e) {
            log.debug("coupon cache refresh failed: {}", e.toString());
        }
    }

    /** Ticks every 250 ms; runs the reconciler every {@code coupon.reconciler.interval}. */
    @Scheduled(fixedDelay = 250, initialDelay = 2000)
    public void reconcile() {
        if (!reconcilerEnabled) return;
        long now = System.nanoTime();
        // A coupon whose Redis state went missing is looked at sooner (at most once a second).
        long every = reconciler.rebuildRequested() ? Math.min(interval.toNanos(), 1_000_000_000L) : interval.toNanos();
        if (now - lastRun < every) return;
        lastRun = now;
        try {
            reconciler.runOnce();
        } catch (RuntimeException e) {
            log.warn("reconciler run failed: {}", e.toString());
        }
    }
}
