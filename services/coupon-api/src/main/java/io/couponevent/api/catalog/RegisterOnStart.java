package io.couponevent.api.catalog;

import io.couponevent.api.config.CatalogProperties;
import io.couponevent.api.config.ServingInstance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * A serving instance also registers the declared coupons when it starts
 * ({@code coupon.catalog.register-on-start}); a failure is logged, the instance serves
 * anyway.
 */
@Component
@ServingInstance
class RegisterOnStart {

	private static final Logger log = LoggerFactory.getLogger(RegisterOnStart.class);

	private final CatalogProperties catalog;

	private final CatalogRegistration registration;

	RegisterOnStart(CatalogProperties catalog, CatalogRegistration registration) {
		this.catalog = catalog;
		this.registration = registration;
	}

	@EventListener(ApplicationReadyEvent.class)
	void registerConfiguredCoupons() {
		if (this.catalog.registerOnStart() && !this.catalog.coupons().isEmpty()) {
			try {
				this.registration.registerAll();
			}
			catch (RuntimeException ex) {
				log.warn("registering the configured coupons at start failed: {}", ex.toString());
			}
		}
	}

}
