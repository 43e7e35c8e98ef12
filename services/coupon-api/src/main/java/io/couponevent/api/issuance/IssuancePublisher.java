package io.couponevent.api.issuance;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.couponevent.api.config.IssuanceProperties;
import io.couponevent.common.IssuanceEvent;
import io.couponevent.common.kafka.CouponKafkaProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.context.event.ApplicationStartedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.stereotype.Component;

/**
 * Sends the contract's issuance message ({@link IssuanceEvent}, written by
 * coupon-common's {@code IssuanceEventSerializer}, key {@code "<couponId>:<userId>"}) and
 * waits at most {@code coupon.issuance.send-timeout} for the acknowledgement of all
 * in-sync replicas.
 */
@Component
class IssuancePublisher {

	private static final Logger log = LoggerFactory.getLogger(IssuancePublisher.class);

	private final KafkaTemplate<String, IssuanceEvent> kafka;

	private final String topic;

	private final Duration timeout;

	IssuancePublisher(KafkaTemplate<String, IssuanceEvent> kafka, CouponKafkaProperties topics,
			IssuanceProperties issuance) {
		this.kafka = kafka;
		this.topic = topics.topic();
		this.timeout = issuance.sendTimeout();
	}

	/**
	 * Creates the producer and fetches the topic's metadata before the pod reports ready
	 * (readiness follows this event), so the first users of a spike do not pay for it
	 * inside their send timeout.
	 */
	@EventListener(ApplicationStartedEvent.class)
	public void warmUp() {
		long start = System.nanoTime();
		try {
			int partitions = kafka.partitionsFor(topic).size();
			log.info("kafka producer ready: topic {} has {} partitions ({} ms)", topic, partitions,
					(System.nanoTime() - start) / 1_000_000);
		}
		catch (RuntimeException e) {
			// Not fatal: the kafka health indicator keeps the pod unready while Kafka is
			// unreachable.
			log.warn("kafka producer warm-up failed: {}", e.toString());
		}
	}

	/**
	 * @throws SendFailedException when the broker refused the record or did not answer in
	 * time; the caller compensates the reservation
	 */
	void send(long couponId, String userId, int slot, Instant reservedAt) {
		IssuanceEvent event = new IssuanceEvent(UUID.randomUUID(), couponId, userId, slot, reservedAt);
		CompletableFuture<?> sent;
		try {
			sent = kafka.send(topic, event.key(), event);
		}
		catch (RuntimeException e) {
			// KafkaProducer.send throws synchronously when metadata cannot be fetched in
			// max.block.ms: the record never reached the producer's buffer, so it cannot
			// land later.
			throw new SendFailedException("send_failed", false, e);
		}
		// From here on a failure is ambiguous: a batch that timed out or lost its
		// connection may still have been appended by the leader (and will then be
		// consumed and persisted).
		try {
			sent.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException e) {
			throw new SendFailedException("timeout", true, e);
		}
		catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			throw new SendFailedException("interrupted", true, e);
		}
		catch (ExecutionException e) {
			throw new SendFailedException("send_failed", true, e.getCause());
		}
	}

	/**
	 * The record was not acknowledged; {@code reason} is the compensation metric's tag.
	 */
	static class SendFailedException extends RuntimeException {

		private final String reason;

		private final boolean mayHaveLanded;

		SendFailedException(String reason, boolean mayHaveLanded, Throwable cause) {
			super("issuance message not acknowledged: " + reason, cause);
			this.reason = reason;
			this.mayHaveLanded = mayHaveLanded;
		}

		String reason() {
			return reason;
		}

		/**
		 * False only when the record never left this process; true when the broker may
		 * hold it.
		 */
		boolean mayHaveLanded() {
			return mayHaveLanded;
		}

	}

}
