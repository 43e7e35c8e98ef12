package io.couponevent.common.kafka;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Kafka names shared by coupon-api (producer) and coupon-consumer, bound from
 * {@code coupon.kafka.*} ({@code COUPON_KAFKA_TOPIC},
 * {@code COUPON_KAFKA_DEAD_LETTER_TOPIC}, ...). The one binding of {@code coupon.kafka}
 * in both services.
 *
 * <p>
 * Enable with {@code @EnableConfigurationProperties(CouponKafkaProperties.class)}.
 *
 * @param topic the issuance topic
 * @param deadLetterTopic where the consumer parks records it can never persist
 * @param consumerGroup the consumer group that persists the issuance topic; coupon-api's
 * reconciler reads its lag (coupon-consumer's own group is
 * {@code spring.kafka.consumer.group-id})
 * @param createTopics declare both topics through Spring Kafka's {@code KafkaAdmin} at
 * start (local harness); the chart turns it off because Strimzi owns the topics
 * @param partitions partitions of a declared topic
 * @param replicas replication factor of a declared topic ({@code min.insync.replicas} is
 * {@code replicas - 1}, at least 1)
 */
@Validated
@ConfigurationProperties("coupon.kafka")
public record CouponKafkaProperties(@NotBlank @DefaultValue(DEFAULT_TOPIC) String topic,
		@NotBlank @DefaultValue(DEFAULT_DEAD_LETTER_TOPIC) String deadLetterTopic,
		@NotBlank @DefaultValue(DEFAULT_CONSUMER_GROUP) String consumerGroup,
		@DefaultValue("true") boolean createTopics, @Min(1) @Max(10_000) @DefaultValue("12") int partitions,
		@Min(1) @Max(32) @DefaultValue("3") short replicas) {

	public static final String DEFAULT_TOPIC = "coupon-issuance";

	public static final String DEFAULT_DEAD_LETTER_TOPIC = "coupon-issuance-dlt";

	public static final String DEFAULT_CONSUMER_GROUP = "coupon-consumer";

	public CouponKafkaProperties {
		if (topic != null && topic.equals(deadLetterTopic)) {
			throw new IllegalArgumentException(
					"coupon.kafka.topic and coupon.kafka.dead-letter-topic must differ, both are '" + topic + "'");
		}
	}

	/**
	 * {@code min.insync.replicas} for a declared topic: survives one broker down when
	 * replicas ≥ 2.
	 */
	public int minInsyncReplicas() {
		return Math.max(1, replicas - 1);
	}
}
