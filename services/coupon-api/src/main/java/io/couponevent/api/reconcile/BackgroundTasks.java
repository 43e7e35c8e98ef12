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

    public BackgroundTasks(CouponCache cache, Reconciler reconciler, CatalogRegistration registration,
            CatalogProperties catalog, io.couponevent.api.config.ReconcilerProperties reconcilerProperties) {
        this.cache = cache;
        this.reconciler = reconciler;
        this.registration = registration;
        this.catalog = catalog;
        this.reconcilerEnabled = reconcilerProperties.enabled();
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

    @Scheduled(fixedDelayString = "${coupon.reconciler.interval:2s}", initialDelay = 2000)
    public void reconcile() {
        if (!reconcilerEnabled) return;
        try {
            reconciler.runOnce();
        } catch (RuntimeException e) {
            log.warn("reconciler run failed: {}", e.toString());
        }
    }
}
