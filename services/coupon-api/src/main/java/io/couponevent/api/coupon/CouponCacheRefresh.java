package io.couponevent.api.coupon;

import io.couponevent.api.config.ServingInstance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Polls the catalog version once a second, so an admin change on another instance reaches
 * this one.
 */
@Component
@ServingInstance
class CouponCacheRefresh {

	private static final Logger log = LoggerFactory.getLogger(CouponCacheRefresh.class);

	private final CouponCache cache;

	CouponCacheRefresh(CouponCache cache) {
		this.cache = cache;
	}

	@Scheduled(fixedDelay = 1000, initialDelay = 1000)
	void refresh() {
		try {
			this.cache.refreshIfChanged();
		}
		catch (RuntimeException ex) {
			log.debug("coupon cache refresh failed: {}", ex.toString());
		}
	}

}
