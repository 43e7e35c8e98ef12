package io.couponevent.consumer.config;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;

import io.couponevent.consumer.persist.WriteRateLimiter;
import org.apache.kafka.clients.consumer.ConsumerConfig;

import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
public class PersistenceConfig {

	/** Kafka's defaults of {@code max.poll.records} and {@code max.poll.interval.ms}. */
	private static final int DEFAULT_MAX_POLL_RECORDS = 500;

	private static final Duration DEFAULT_MAX_POLL_INTERVAL = Duration.ofMinutes(5);

	@Bean
	@ConditionalOnMissingBean
	Clock clock() {
		return Clock.systemUTC();
	}

	/**
	 * Absent when the cap is 0 (off): the listener then writes as fast as it reads.
	 * Refuses a cap under which a listener thread would sleep past half of
	 * {@code max.poll.interval.ms}: the group would evict it and hand its batch to
	 * another thread, again and again.
	 */
	@Bean
	@ConditionalOnExpression("${coupon.consumer.max-inserts-per-second:0} > 0")
	WriteRateLimiter writeRateLimiter(ConsumerProperties props, KafkaProperties kafka) {
		Map<String, Object> consumer = kafka.buildConsumerProperties();
		int maxPollRecords = intValue(consumer.get(ConsumerConfig.MAX_POLL_RECORDS_CONFIG), DEFAULT_MAX_POLL_RECORDS);
		long pollIntervalMs = intValue(consumer.get(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG),
				(int) DEFAULT_MAX_POLL_INTERVAL.toMillis());
		// Each thread books at most one batch before it waits, so the longest wait is the
		// permits of one batch per thread (WriteRateLimiter).
		double longestWaitMs = 1000.0 * maxPollRecords * props.concurrency() / props.maxInsertsPerSecond();
		if (longestWaitMs > pollIntervalMs / 2.0) {
			throw new IllegalStateException(String.format(
					"coupon.consumer.max-inserts-per-second=%d shared by coupon.consumer.concurrency=%d threads "
							+ "polling up to max.poll.records=%d each makes a thread wait up to %.0f s for its "
							+ "permits, more than half of max.poll.interval.ms=%d: the group would evict it and "
							+ "redeliver its batch again and again. Keep max-poll-records x concurrency / "
							+ "max-inserts-per-second <= %.0f s, e.g. spring.kafka.consumer.max-poll-records=%d",
					props.maxInsertsPerSecond(), props.concurrency(), maxPollRecords, longestWaitMs / 1000,
					pollIntervalMs, pollIntervalMs / 2000.0,
					Math.max(1, pollIntervalMs / 2000 * props.maxInsertsPerSecond() / props.concurrency())));
		}
		return WriteRateLimiter.system(props.maxInsertsPerSecond());
	}

	private static int intValue(Object value, int fallback) {
		return switch (value) {
			case null -> fallback;
			case Number number -> number.intValue();
			default -> Integer.parseInt(value.toString().trim());
		};
	}

}
