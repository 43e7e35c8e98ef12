package io.couponevent.api.config;

import java.time.Duration;

import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The hot path's limits.
 *
 * @param sendTimeout longest a request waits for the Kafka acknowledgement before it
 * compensates
 * @param deliveryTimeout how long the producer keeps delivering a record after its
 * request gave up on it (at least {@code sendTimeout}): a send stalled by a lost broker,
 * held by the compensation, still lands once the broker is fenced and its partitions have
 * a new leader, and the reconciler then settles its slot at once (docs/decisions/0048)
 * @param retryAfter what a 503 answer suggests in {@code Retry-After}
 * @param maxInFlight issuance requests one process works on at once; the rest wait for a
 * turn
 * @param admissionWait longest a request waits for a turn before it is answered 503
 * OVERLOADED
 */
@Validated
@ConfigurationProperties("coupon.issuance")
public record IssuanceProperties(@NotNull @DefaultValue("2s") Duration sendTimeout,
		@NotNull @DefaultValue("6s") Duration deliveryTimeout, @NotNull @DefaultValue("1s") Duration retryAfter,
		@Min(value = 1,
				message = "coupon.issuance.max-in-flight must be at least 1") @DefaultValue("256") int maxInFlight,
		@NotNull @DefaultValue("500ms") Duration admissionWait) {

	@AssertTrue(message = "coupon.issuance.send-timeout must be positive")
	public boolean isSendTimeoutPositive() {
		return sendTimeout == null || (!sendTimeout.isNegative() && !sendTimeout.isZero());
	}

	@AssertTrue(message = "coupon.issuance.delivery-timeout must be at least coupon.issuance.send-timeout")
	public boolean isDeliveryTimeoutValid() {
		return deliveryTimeout == null || sendTimeout == null || deliveryTimeout.compareTo(sendTimeout) >= 0;
	}

	@AssertTrue(message = "coupon.issuance.retry-after must be at least 1s")
	public boolean isRetryAfterPositive() {
		return retryAfter == null || retryAfter.toSeconds() >= 1;
	}

	/** The {@code Retry-After} header value of every 503: whole seconds, at least 1. */
	public String retryAfterHeader() {
		return Long.toString(Math.max(1, retryAfter.toSeconds()));
	}

	@AssertTrue(message = "coupon.issuance.admission-wait must not be negative")
	public boolean isAdmissionWaitValid() {
		return admissionWait == null || !admissionWait.isNegative();
	}
}
