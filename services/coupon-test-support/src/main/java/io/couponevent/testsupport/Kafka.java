package io.couponevent.testsupport;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Raw Kafka clients for the tests, independent of the code under test. */
public final class Kafka implements AutoCloseable {

	private final String bootstrap;

	private KafkaProducer<String, byte[]> producer;

	public Kafka(String bootstrap) {
		this.bootstrap = bootstrap;
	}

	/** The harness's brokers ({@code KAFKA_BOOTSTRAP}). */
	public static Kafka harness() {
		return new Kafka(Harness.kafkaBootstrap());
	}

	/**
	 * The contract's topic (12 partitions, RF 3, {@code min.insync.replicas=2}), if the
	 * harness has not made it.
	 */
	public static void ensureIssuanceTopic() throws Exception {
		try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, Harness.kafkaBootstrap()))) {
			try {
				admin
					.createTopics(List
						.of(new NewTopic(Harness.TOPIC, 12, (short) 3).configs(Map.of("min.insync.replicas", "2"))))
					.all()
					.get(30, TimeUnit.SECONDS);
			}
			catch (ExecutionException ex) {
				if (!(ex.getCause() instanceof TopicExistsException)) {
					throw ex;
				}
			}
		}
	}

	/**
	 * Sends to one partition and waits for the ack, so the order within the partition is
	 * known.
	 */
	public void send(String topic, int partition, String key, byte[] value) throws Exception {
		producer().send(new ProducerRecord<>(topic, partition, key, value)).get();
	}

	/**
	 * Reads {@code topic} from the beginning until {@code enough} holds for the matching
	 * records.
	 */
	public List<ConsumerRecord<String, byte[]>> readUntil(String topic,
			Predicate<ConsumerRecord<String, byte[]>> filter, Predicate<List<ConsumerRecord<String, byte[]>>> enough,
			Duration timeout) {
		try (KafkaConsumer<String, byte[]> consumer = consumer(ByteArrayDeserializer.class)) {
			List<TopicPartition> partitions = partitions(consumer, topic);
			consumer.assign(partitions);
			consumer.seekToBeginning(partitions);
			List<ConsumerRecord<String, byte[]>> matched = new ArrayList<>();
			Instant deadline = Instant.now().plus(timeout);
			while (!enough.test(matched) && Instant.now().isBefore(deadline)) {
				for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
					if (filter.test(record)) {
						matched.add(record);
					}
				}
			}
			return matched;
		}
	}

	/**
	 * Watches what lands on {@code topic} from now on (no consumer group, no commits).
	 */
	public Probe probe(String topic) {
		return new Probe(consumer(StringDeserializer.class), topic);
	}

	private <V> KafkaConsumer<String, V> consumer(Class<?> valueDeserializer) {
		return new KafkaConsumer<>(
				Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, this.bootstrap, ConsumerConfig.GROUP_ID_CONFIG,
						"reader-" + UUID.randomUUID(), ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
						StringDeserializer.class, ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, valueDeserializer,
						ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false, ConsumerConfig.ISOLATION_LEVEL_CONFIG,
						"read_uncommitted"));
	}

	private static List<TopicPartition> partitions(KafkaConsumer<?, ?> consumer, String topic) {
		return consumer.partitionsFor(topic, Duration.ofSeconds(30))
			.stream()
			.map((partition) -> new TopicPartition(topic, partition.partition()))
			.toList();
	}

	private synchronized KafkaProducer<String, byte[]> producer() {
		if (this.producer == null) {
			this.producer = new KafkaProducer<>(
					Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, this.bootstrap, ProducerConfig.ACKS_CONFIG, "all"),
					new StringSerializer(), new ByteArraySerializer());
		}
		return this.producer;
	}

	@Override
	public synchronized void close() {
		if (this.producer != null) {
			this.producer.close(Duration.ofSeconds(2));
		}
	}

	/** Records that land on a topic after the probe was opened. */
	public static final class Probe implements AutoCloseable {

		private final KafkaConsumer<String, String> consumer;

		private Probe(KafkaConsumer<String, String> consumer, String topic) {
			this.consumer = consumer;
			List<TopicPartition> partitions = partitions(consumer, topic);
			consumer.assign(partitions);
			consumer.seekToEnd(partitions);
			// Resolve the end offsets now, before the test acts.
			partitions.forEach(consumer::position);
		}

		/**
		 * Records whose key starts with {@code "<couponId>:"}, polled for
		 * {@code duration}.
		 */
		public List<ConsumerRecord<String, String>> recordsFor(long couponId, Duration duration) {
			List<ConsumerRecord<String, String>> found = new ArrayList<>();
			long deadline = System.nanoTime() + duration.toNanos();
			while (System.nanoTime() < deadline) {
				for (ConsumerRecord<String, String> record : this.consumer.poll(Duration.ofMillis(200))) {
					if (record.key() != null && record.key().startsWith(couponId + ":")) {
						found.add(record);
					}
				}
			}
			return found;
		}

		@Override
		public void close() {
			this.consumer.close(Duration.ofSeconds(2));
		}

	}

}
