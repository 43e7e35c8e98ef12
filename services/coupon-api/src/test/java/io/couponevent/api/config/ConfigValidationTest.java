package io.couponevent.api.config;

import io.couponevent.common.security.JwtProperties;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/** Bad configuration stops the start with a message that names the key. */
class ConfigValidationTest {

	@Configuration
	@EnableConfigurationProperties({ JwtProperties.class, IssuanceProperties.class, CatalogProperties.class })
	static class Props {

	}

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withUserConfiguration(Props.class);

	@Test
	void validConfigurationStarts() {
		runner.withPropertyValues("coupon.security.jwt.secret=local-dev-secret-change-me-0123456789abcdef").run(ctx -> {
			assertThat(ctx).hasNotFailed();
			assertThat(ctx.getBean(IssuanceProperties.class).sendTimeout()).hasSeconds(2);
			assertThat(ctx.getBean(IssuanceProperties.class).maxInFlight()).isEqualTo(256);
		});
	}

	@Test
	void neitherSecretNorJwkSetUri() {
		runner.run(ctx -> assertThat(ctx).getFailure()
			.rootCause()
			.hasMessageContaining("coupon.security.jwt.jwk-set-uri"));
	}

	@Test
	void shortSecret() {
		runner.withPropertyValues("coupon.security.jwt.secret=too-short")
			.run(ctx -> assertThat(ctx).getFailure().rootCause().hasMessageContaining("at least 32 bytes"));
	}

	@Test
	void nonPositiveSendTimeout() {
		runner
			.withPropertyValues("coupon.security.jwt.jwk-set-uri=http://127.0.0.1:1/jwks",
					"coupon.issuance.send-timeout=0s")
			.run(ctx -> assertThat(ctx).getFailure().rootCause().hasMessageContaining("send-timeout must be positive"));
	}

	@Test
	void deliveryTimeoutBelowTheSendTimeout() {
		runner
			.withPropertyValues("coupon.security.jwt.jwk-set-uri=http://127.0.0.1:1/jwks",
					"coupon.issuance.send-timeout=2s", "coupon.issuance.delivery-timeout=1s")
			.run(ctx -> assertThat(ctx).getFailure()
				.rootCause()
				.hasMessageContaining("delivery-timeout must be at least coupon.issuance.send-timeout"));
	}

	@Test
	void admissionBoundBelowOne() {
		runner
			.withPropertyValues("coupon.security.jwt.jwk-set-uri=http://127.0.0.1:1/jwks",
					"coupon.issuance.max-in-flight=0")
			.run(ctx -> assertThat(ctx).getFailure()
				.rootCause()
				.hasMessageContaining("max-in-flight must be at least 1"));
	}

	/**
	 * Issue #37 item 17: the catalog's quantity has the admin API's bound, 10,000,000,
	 * not none.
	 */
	@Test
	void catalogCouponAboveTheQuantityBound() {
		runner
			.withPropertyValues("coupon.security.jwt.jwk-set-uri=http://127.0.0.1:1/jwks",
					"coupon.catalog.coupons[0].id=7", "coupon.catalog.coupons[0].name=x",
					"coupon.catalog.coupons[0].quantity=10000001",
					"coupon.catalog.coupons[0].opens-at=2026-11-21T10:00:00Z",
					"coupon.catalog.coupons[0].closes-at=2026-11-21T11:00:00Z")
			.run(ctx -> assertThat(ctx).getFailure()
				.rootCause()
				.hasMessageContaining("coupon.catalog.coupons[0].quantity"));
		runner
			.withPropertyValues("coupon.security.jwt.jwk-set-uri=http://127.0.0.1:1/jwks",
					"coupon.catalog.coupons[0].id=7", "coupon.catalog.coupons[0].name=x",
					"coupon.catalog.coupons[0].quantity=10000000",
					"coupon.catalog.coupons[0].opens-at=2026-11-21T10:00:00Z",
					"coupon.catalog.coupons[0].closes-at=2026-11-21T11:00:00Z")
			.run(ctx -> assertThat(ctx).hasNotFailed());
	}

	@Test
	void catalogCouponWithBackwardsWindow() {
		runner
			.withPropertyValues("coupon.security.jwt.jwk-set-uri=http://127.0.0.1:1/jwks",
					"coupon.catalog.coupons[0].id=7", "coupon.catalog.coupons[0].name=x",
					"coupon.catalog.coupons[0].quantity=10", "coupon.catalog.coupons[0].opens-at=2026-11-21T10:00:00Z",
					"coupon.catalog.coupons[0].closes-at=2026-11-21T09:00:00Z")
			.run(ctx -> assertThat(ctx).getFailure()
				.rootCause()
				.hasMessageContaining("closes-at must be after opens-at"));
	}

	/**
	 * Issue #38 item 6: a catalog coupon without {@code opens-at} opens at its
	 * registration, and {@code closes-at} may be an ISO-8601 duration from the opening; a
	 * closing that reads as neither stops the start.
	 */
	@Test
	void catalogCouponOpeningAtRegistrationWithADuration() {
		runner
			.withPropertyValues("coupon.security.jwt.jwk-set-uri=http://127.0.0.1:1/jwks",
					"coupon.catalog.coupons[0].id=7", "coupon.catalog.coupons[0].name=x",
					"coupon.catalog.coupons[0].quantity=10", "coupon.catalog.coupons[0].closes-at=PT2H")
			.run(ctx -> assertThat(ctx).hasNotFailed());
		for (String closing : new String[] { "2h", "PT0S", "-PT1H", "P1M" }) {
			runner
				.withPropertyValues("coupon.security.jwt.jwk-set-uri=http://127.0.0.1:1/jwks",
						"coupon.catalog.coupons[0].id=7", "coupon.catalog.coupons[0].name=x",
						"coupon.catalog.coupons[0].quantity=10", "coupon.catalog.coupons[0].closes-at=" + closing)
				.run(ctx -> assertThat(ctx).getFailure()
					.as(closing)
					.rootCause()
					.hasMessageContaining("closes-at must be an instant or a positive ISO-8601 duration"));
		}
	}

}
