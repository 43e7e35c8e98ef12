package io.couponevent.api.job;

import io.couponevent.api.catalog.CatalogRegistration;
import io.couponevent.api.verify.VerificationJob;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * The chart's hook jobs. {@code migrate}: Flyway has already run while the context
 * started (it is forced on for this job), so there is nothing left to do.
 * {@code register}: upsert the configured coupons. {@code verify}: QA's verdict after a
 * load test ({@link VerificationJob}; exits {@value VerificationJob#FAILED} on FAIL). An
 * exception here makes the process exit 1.
 */
@Component
@ConditionalOnProperty(name = "coupon.job")
class JobRunner implements ApplicationRunner {

	private static final Logger log = LoggerFactory.getLogger(JobRunner.class);

	private final String job;

	private final CatalogRegistration registration;

	private final ObjectProvider<VerificationJob> verification;

	JobRunner(@Value("${coupon.job}") String job, CatalogRegistration registration,
			ObjectProvider<VerificationJob> verification) {
		this.job = job;
		this.registration = registration;
		this.verification = verification;
	}

	@Override
	public void run(ApplicationArguments args) {
		switch (job) {
			case "migrate" -> log.info("migrations applied");
			case "register" -> log.info("registered {} configured coupons", registration.registerAll());
			case "verify" -> verification.getObject().run();
			default ->
				throw new IllegalArgumentException("unknown coupon.job '" + job + "' (migrate, register or verify)");
		}
	}

}
