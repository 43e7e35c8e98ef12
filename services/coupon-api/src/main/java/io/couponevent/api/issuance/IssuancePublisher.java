package io.couponevent.api.issuance;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.couponevent.api.config.IssuanceProperties;
import io.couponevent.api.config.TopicProperties;
import io.couponevent.common.IssuanceEvent;
import tools.jackson.databind.json.JsonMapper;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.context.event.ApplicationStartedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.stereotype.Component;

/**
 * Sends the contract's issuance message ({@link IssuanceEvent} as JSON, key {@code "<couponId>:<userId>"}) and waits at most
 * {@code coupon.issuance.send-timeout} for the acknowledgement of all in-sync replicas.
 */
@Component
public class IssuancePublisher {

    private static final Logger log = LoggerFactory.getLogger(IssuancePublisher.class);

    private final KafkaTemplate<String, String> kafka;
    private final JsonMapper json;
    private final String topic;
    private final Duration timeout;

    public IssuancePublisher(KafkaTemplate<String, String> kafka, JsonMapper json, TopicProperties topics,
            IssuanceProperties issuance) {
        this.kafka = kafka;
        this.json = json;
        this.topic = topics.topic();
        this.timeout = issuance.sendTimeout();
    }

    /**
     * Creates the producer and fetches the topic's metadata before the pod reports ready (readiness
     * follows this event), so the first users of a spike do not pay for it inside their send timeout.
     */
    @EventListener(ApplicationStartedEvent.class)
    public void warmUp() {
        long start = System.nanoTime();
        try {
            int partitions = kafka.partitionsFor(topic).size();
            log.info("kafka producer ready: topic {} has {} partitions ({} ms)", topic, partitions,
                    (System.nanoTime() - start) / 1_000_000);
        } catch (RuntimeException e) {
            // Not fatal: the kafka health indicator keeps the pod unready while Kafka is unreachable.
            log.warn("kafka producer warm-up failed: {}", e.toString());
        }
    }

    /**
     * @throws SendFailedException when the broker refused the record or did not answer in time; the
     *                             caller compensates the reservation
     */
    public void send(long couponId, String userId, int slot, Instant reservedAt) {
        IssuanceEvent event = new IssuanceEvent(UUID.randomUUID(), couponId, userId, slot, reservedAt);
        String value = json.writeValueAsString(event);
        try {
            kafka.send(topic, event.key(), value).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new SendFailedException("timeout", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SendFailedException("interrupted", e);
        } catch (ExecutionException e) {
            throw new SendFailedException("send_failed", e.getCause());
        } catch (RuntimeException e) {
            // KafkaProducer.send throws synchronously when metadata cannot be fetched in max.block.ms.
            throw new SendFailedException("send_failed", e);
        }
    }

    /** The record may not have reached Kafka; {@code reason} is the compensation metric's tag. */
    public static class SendFailedException extends RuntimeException {
        private final String reason;

        SendFailedException(String reason, Throwable cause) {
            super("issuance message not acknowledged: " + reason, cause);
            this.reason = reason;
        }

        public String reason() {
            return reason;
        }
    }
}
