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
 * How many issuance records the consumer group has not committed yet (end offsets minus
 * committed offsets). Zero means every record sent so far is either in MySQL or in the
 * dead-letter topic, so MySQL can be trusted to rebuild Redis or to judge a reservation
 * stale.
 */
@Component
class ConsumerLag implements DisposableBean {

	private static final long TIMEOUT_MS = 5000;

	private final KafkaAdmin kafkaAdmin;

	private final CouponKafkaProperties topics;

	private volatile Admin admin;

	ConsumerLag(KafkaAdmin kafkaAdmin, CouponKafkaProperties topics) {
		this.kafkaAdmin = kafkaAdmin;
		this.topics = topics;
	}

	/**
	 * @throws IllegalStateException when Kafka cannot answer: callers must then assume
	 * lag
	 */
	long total() {
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
					return 0;
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
			long lag = 0;
			for (TopicPartition tp : partitions) {
				long end = ends.get(tp).offset();
				OffsetAndMetadata done = committed.get(tp);
				lag += Math.max(0, end - (done == null ? 0 : done.offset()));
			}
			return lag;
		}
		catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted while reading the consumer lag", e);
		}
		catch (Exception e) {
			throw new IllegalStateException("cannot read the consumer lag: " + e, e);
		}
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
