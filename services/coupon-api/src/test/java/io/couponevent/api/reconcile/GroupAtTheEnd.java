package io.couponevent.api.reconcile;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.couponevent.common.kafka.CouponKafkaProperties;
import io.couponevent.testsupport.Harness;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The reconciler tests play the consumer: its group is committed by hand at the issuance
 * topic's end offsets, as a consumer that has kept up with everything would commit.
 */
final class GroupAtTheEnd implements AutoCloseable {

	private final Admin admin = Admin
		.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, Harness.kafkaBootstrap()));

	private final CouponKafkaProperties kafka;

	GroupAtTheEnd(CouponKafkaProperties kafka) {
		this.kafka = kafka;
	}

	/** Commits the group at the topic's end offsets as they are now. */
	void commit() throws Exception {
		Set<TopicPartition> partitions = this.admin.describeTopics(Set.of(this.kafka.topic()))
			.allTopicNames()
			.get(10, TimeUnit.SECONDS)
			.get(this.kafka.topic())
			.partitions()
			.stream()
			.map((p) -> new TopicPartition(this.kafka.topic(), p.partition()))
			.collect(Collectors.toSet());
		Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
		partitions.forEach((tp) -> latest.put(tp, OffsetSpec.latest()));
		Map<TopicPartition, OffsetAndMetadata> ends = new HashMap<>();
		this.admin.listOffsets(latest)
			.all()
			.get(10, TimeUnit.SECONDS)
			.forEach((tp, info) -> ends.put(tp, new OffsetAndMetadata(info.offset())));
		this.admin.alterConsumerGroupOffsets(this.kafka.consumerGroup(), ends).all().get(10, TimeUnit.SECONDS);
	}

	@Override
	public void close() {
		this.admin.close();
	}

}
