package io.couponevent.api.job;

import io.couponevent.api.catalog.CatalogRegistration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * The chart's hook jobs. {@code migrate}: Flyway has already run while the context
 * started (it is forced on for this job), so there is nothing left to do.
 * {@code register}: upsert the configured coupons. An exception here makes the process
 * exit 1.
 */
@Component
@ConditionalOnProperty(name = "coupon.job")
class JobRunner implements ApplicationRunner {

	private static final Logger log = LoggerFactory.getLogger(JobRunner.class);

	private final String job;

	private final CatalogRegistration registration;

	JobRunner(@Value("${coupon.job}") String job, CatalogRegistration registration) {
		this.job = job;
		this.registration = registration;
	}

	@Override
	public void run(ApplicationArguments args) {
		switch (job) {
			case "migrate" -> log.info("migrations applied");
			case "register" -> log.info("registered {} configured coupons", registration.registerAll());
			default -> throw new IllegalArgumentException("unknown coupon.job '" + job + "' (migrate or register)");
		}
	}

}
