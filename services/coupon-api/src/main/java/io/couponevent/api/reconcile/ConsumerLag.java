package io.couponevent.api.reconcile;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.couponevent.common.kafka.CouponKafkaProperties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.stereotype.Component;

/**
 * Where the consumer group stands on the issuance topic: its committed offsets against
 * the topic's end offsets. The {@link Reconciler} judges MySQL complete up to a moment
 * when the group has committed past the end offsets read at that moment (an offset
 * barrier): every record sent before it is then either in MySQL or in the dead-letter
 * topic, even while new records keep the lag above 0.
 */
@Component
public class ConsumerLag implements DisposableBean {

	private static final long TIMEOUT_MS = 5000;

	private final KafkaAdmin kafkaAdmin;

	private final CouponKafkaProperties topics;

	private volatile Admin admin;

	ConsumerLag(KafkaAdmin kafkaAdmin, CouponKafkaProperties topics) {
		this.kafkaAdmin = kafkaAdmin;
		this.topics = topics;
	}

	/**
	 * The topic's end offsets and the group's committed offsets (a partition the group
	 * never committed counts as 0), read in that order.
	 */
	record Offsets(Map<TopicPartition, Long> ends, Map<TopicPartition, Long> committed) {

		/**
		 * Whether the group has committed up to these end offsets, on every partition.
		 */
		boolean committedPast(Map<TopicPartition, Long> barrier) {
			return barrier.entrySet()
				.stream()
				.allMatch((end) -> this.committed.getOrDefault(end.getKey(), 0L) >= end.getValue());
		}

	}

	/**
	 * @throws IllegalStateException when Kafka cannot answer: callers must then assume
	 * records in flight
	 */
	Offsets offsets() {
		try {
			Admin client = client();
			Map<String, TopicDescription> described;
			try {
				described = client.describeTopics(Set.of(topics.topic()))
					.allTopicNames()
					.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
			}
			catch (java.util.concurrent.ExecutionException e) {
				if (e.getCause() instanceof UnknownTopicOrPartitionException) {
					return new Offsets(Map.of(), Map.of());
				}
				throw e;
			}
			Set<TopicPartition> partitions = described.get(topics.topic())
				.partitions()
				.stream()
				.map(p -> new TopicPartition(topics.topic(), p.partition()))
				.collect(Collectors.toSet());
			Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
			partitions.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
			Map<TopicPartition, ListOffsetsResultInfo> ends = client.listOffsets(latest)
				.all()
				.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
			Map<TopicPartition, OffsetAndMetadata> committed = client.listConsumerGroupOffsets(topics.consumerGroup())
				.partitionsToOffsetAndMetadata()
				.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
			Map<TopicPartition, Long> endOffsets = new HashMap<>();
			Map<TopicPartition, Long> committedOffsets = new HashMap<>();
			for (TopicPartition tp : partitions) {
				endOffsets.put(tp, ends.get(tp).offset());
				OffsetAndMetadata done = committed.get(tp);
				committedOffsets.put(tp, done == null ? 0 : done.offset());
			}
			return new Offsets(endOffsets, committedOffsets);
		}
		catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted while reading the consumer offsets", e);
		}
		catch (Exception e) {
			throw new IllegalStateException("cannot read the consumer offsets: " + e, e);
		}
	}

	/**
	 * The group's lag on the issuance topic: records appended and not yet committed, over
	 * every partition.
	 * @throws IllegalStateException when Kafka cannot answer
	 */
	public long total() {
		Offsets offsets = offsets();
		return offsets.ends()
			.entrySet()
			.stream()
			.mapToLong((end) -> Math.max(0, end.getValue() - offsets.committed().getOrDefault(end.getKey(), 0L)))
			.sum();
	}

	private Admin client() {
		Admin current = admin;
		if (current == null) {
			synchronized (this) {
				if (admin == null) {
					admin = Admin.create(kafkaAdmin.getConfigurationProperties());
				}
				current = admin;
			}
		}
		return current;
	}

	@Override
	public void destroy() {
		if (admin != null) {
			admin.close(java.time.Duration.ofSeconds(2));
		}
	}

}
