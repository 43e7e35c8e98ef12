package io.couponevent.consumer.deadletter;

import java.nio.charset.StandardCharsets;

import io.couponevent.common.kafka.CouponKafkaProperties;
import io.couponevent.consumer.metrics.ConsumerMetrics;
import io.couponevent.consumer.persist.DeadLetterReason;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;

import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;

/**
 * Publishes a record that can never be persisted to the dead-letter topic with its
 * original key and value (the raw bytes for a poison record), Spring Kafka's
 * {@code kafka_dlt-*} headers and a {@value #REASON_HEADER} header, then counts it. Waits
 * for the broker's ack, so a record is only given up (its offset committed) once its dead
 * letter is safe.
 */
public class DeadLetterRecoverer extends DeadLetterPublishingRecoverer {

	/**
	 * Header with the {@link DeadLetterReason} tag ({@code poison},
	 * {@code slot_conflict}, …).
	 */
	public static final String REASON_HEADER = "coupon-dlt-reason";

	private final ConsumerMetrics metrics;

	public DeadLetterRecoverer(KafkaOperations<?, ?> template, CouponKafkaProperties topics, ConsumerMetrics metrics) {
		// Partition -1: let the producer pick by key, the DLT may have fewer partitions
		// than the topic.
		super(template, (record, failure) -> new TopicPartition(topics.deadLetterTopic(), -1));
		this.metrics = metrics;
		setHeadersFunction((record, failure) -> new RecordHeaders().add(REASON_HEADER,
				DeadLetterReasons.of(failure).tag().getBytes(StandardCharsets.UTF_8)));
	}

	@Override
	public void accept(ConsumerRecord<?, ?> record, Consumer<?, ?> consumer, Exception failure) {
		super.accept(record, consumer, failure);
		metrics.deadLettered(DeadLetterReasons.of(failure));
	}

}
