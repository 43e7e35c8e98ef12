package io.couponevent.consumer.config;

import io.couponevent.common.security.JwtProperties;
import io.couponevent.consumer.persist.WriteRateLimiter;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/** Bad configuration stops the start with a message naming the key. */
class ConfigValidationTest {

	@Configuration
	@EnableConfigurationProperties({ ConsumerProperties.class, JwtProperties.class })
	static class Props {

	}

	@Configuration
	@EnableConfigurationProperties(KafkaProperties.class)
	static class Kafka {

	}

	private static final String SECRET = "coupon.security.jwt.secret=local-dev-secret-change-me-0123456789abcdef";

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withUserConfiguration(Props.class);

	@Test
	void defaultsAreValid() {
		runner.withPropertyValues(SECRET).run(context -> {
			assertThat(context).hasNotFailed();
			ConsumerProperties props = context.getBean(ConsumerProperties.class);
			assertThat(props.concurrency()).isEqualTo(1);
			assertThat(props.maxInsertsPerSecond()).isZero();
			assertThat(props.retry().maxElapsed()).isZero();
			assertThat(props.replay().groupId()).isEqualTo("coupon-consumer-dlt-replay");
		});
	}

	@Test
	void zeroConcurrencyFails() {
		runner.withPropertyValues(SECRET, "coupon.consumer.concurrency=0")
			.run(context -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("coupon.consumer")
				.hasMessageContaining("concurrency"));
	}

	@Test
	void negativeRateCapFails() {
		runner.withPropertyValues(SECRET, "coupon.consumer.max-inserts-per-second=-5")
			.run(context -> assertThat(context).getFailure().rootCause().hasMessageContaining("maxInsertsPerSecond"));
	}

	/**
	 * A thread waits for the permits of every thread's batch before its own: with 500
	 * records a poll and one insert a second, it would sleep 500 s, past Kafka's
	 * {@code max.poll.interval.ms} (5 min), be evicted and get its batch again, forever.
	 */
	@Test
	void rateCapUnderWhichABatchOutlastsThePollIntervalFails() {
		ApplicationContextRunner limited = runner.withUserConfiguration(Kafka.class, PersistenceConfig.class)
			.withPropertyValues(SECRET);
		limited.withPropertyValues("coupon.consumer.max-inserts-per-second=1")
			.run(context -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("coupon.consumer.max-inserts-per-second=1")
				.hasMessageContaining("max.poll.interval.ms"));
		// Four threads share the cap: 4 x 500 / 10 = 200 s, over half of the 300 s.
		limited.withPropertyValues("coupon.consumer.max-inserts-per-second=10", "coupon.consumer.concurrency=4")
			.run(context -> assertThat(context).getFailure().rootCause().hasMessageContaining("concurrency=4"));
		// Fewer records a poll, or a longer poll interval, make the same caps fit.
		limited
			.withPropertyValues("coupon.consumer.max-inserts-per-second=10", "coupon.consumer.concurrency=4",
					"spring.kafka.consumer.max-poll-records=100")
			.run(context -> assertThat(context).hasNotFailed().hasSingleBean(WriteRateLimiter.class));
		limited
			.withPropertyValues("coupon.consumer.max-inserts-per-second=1",
					"spring.kafka.consumer.properties[max.poll.interval.ms]=1200000")
			.run(context -> assertThat(context).hasNotFailed().hasSingleBean(WriteRateLimiter.class));
		limited.withPropertyValues("coupon.consumer.max-inserts-per-second=100")
			.run(context -> assertThat(context).hasNotFailed().hasSingleBean(WriteRateLimiter.class));
	}

	@Test
	void unreadableDurationFails() {
		runner.withPropertyValues(SECRET, "coupon.consumer.shutdown-timeout=soon")
			.run(context -> assertThat(context).getFailure()
				.hasStackTraceContaining("coupon.consumer.shutdown-timeout"));
	}

	@Test
	void missingOrShortJwtSecretFails() {
		runner.run(context -> assertThat(context).getFailure().hasStackTraceContaining("Set exactly one of"));
		runner.withPropertyValues("coupon.security.jwt.secret=short")
			.run(context -> assertThat(context).getFailure().hasStackTraceContaining("at least 32 bytes"));
		runner.withPropertyValues(SECRET, "coupon.security.jwt.jwk-set-uri=http://127.0.0.1:1/jwks")
			.run(context -> assertThat(context).getFailure().hasStackTraceContaining("Set exactly one of"));
	}

}
