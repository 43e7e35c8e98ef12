package io.couponevent.consumer.config;

import java.time.Duration;

import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.PositiveOrZero;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * {@code coupon.consumer.*}: how the listener runs. Invalid values stop the start with a
 * message naming the key.
 *
 * @param concurrency listener threads per pod (each owns some partitions); one by
 * default: each thread polls, commits and writes its own batches, so more threads mean
 * smaller, costlier batches (docs/decisions)
 * @param maxInsertsPerSecond write-rate cap protecting MySQL, shared by all threads; 0 =
 * none
 * @param shutdownTimeout how long a stopping container waits for the batch in hand; keep
 * it under {@code spring.lifecycle.timeout-per-shutdown-phase}
 * @param retry back-off for batches that failed for a passing reason (database down)
 * @param replay dead-letter replay
 */
@Validated
@ConfigurationProperties("coupon.consumer")
public record ConsumerProperties(@Min(1) @Max(64) @DefaultValue("1") int concurrency,
		@PositiveOrZero @DefaultValue("0") int maxInsertsPerSecond,
		@NotNull @DefaultValue("15s") Duration shutdownTimeout, @Valid @NotNull @DefaultValue Retry retry,
		@Valid @NotNull @DefaultValue Replay replay) {

	/**
	 * @param initialInterval first pause before retrying a failed batch
	 * @param multiplier growth of the pause per attempt
	 * @param maxInterval longest pause
	 * @param maxElapsed give up (dead-letter as {@code other}) after this long; 0 =
	 * never, the right choice for an outage: the rows are owed, lag alerts call a human
	 */
	public record Retry(@NotNull @DefaultValue("200ms") Duration initialInterval,
			@DecimalMin("1.0") @DefaultValue("2.0") double multiplier,
			@NotNull @DefaultValue("15s") Duration maxInterval, @NotNull @DefaultValue("0s") Duration maxElapsed) {
	}

	/**
	 * @param groupId consumer group whose committed offsets mark how far the dead-letter
	 * topic has been replayed
	 * @param timeout longest one replay request runs; what is left waits for the next
	 * request
	 */
	public record Replay(@NotBlank @DefaultValue("coupon-consumer-dlt-replay") String groupId,
			@NotNull @DefaultValue("60s") Duration timeout) {
	}
}
