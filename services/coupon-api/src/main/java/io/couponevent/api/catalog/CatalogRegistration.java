package io.couponevent.api.catalog;

import io.couponevent.api.config.CatalogProperties;
import io.couponevent.api.config.CatalogProperties.CouponSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

/**
 * Upserts the coupons of {@code coupon.catalog.coupons} (MySQL incl. slot rows, then
 * Redis); idempotent.
 */
@Component
public class CatalogRegistration {

	private static final Logger log = LoggerFactory.getLogger(CatalogRegistration.class);

	private final CatalogProperties catalog;

	private final CouponRegistry registry;

	CatalogRegistration(CatalogProperties catalog, CouponRegistry registry) {
		this.catalog = catalog;
		this.registry = registry;
	}

	public int registerAll() {
		for (CouponSpec spec : catalog.coupons()) {
			var saved = registry.upsert(spec.id(), spec.name(), spec.quantity(), spec.window());
			log.info("coupon {} '{}' {} (quantity {}, {} .. {})", spec.id(), spec.name(),
					saved.created() ? "created" : "updated", spec.quantity(), saved.coupon().opensAt(),
					saved.coupon().closesAt());
		}
		return catalog.coupons().size();
	}

}
