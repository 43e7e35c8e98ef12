package io.couponevent.consumer.support;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Raw producer and reader for the test topics, independent of the code under test. */
public final class Kafka implements AutoCloseable {

    private final String bootstrap;
    private final KafkaProducer<String, byte[]> producer;

    public Kafka(String bootstrap) {
        this.bootstrap = bootstrap;
        this.producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new ByteArraySerializer());
    }

    /** Sends to one partition and waits for the ack, so the order within the partition is known. */
    public void send(String topic, int partition, String key, byte[] value) throws Exception {
        producer.send(new ProducerRecord<>(topic, partition, key, value)).get();
    }

    /** Reads {@code topic} from the beginning until {@code enough} holds for the matching records. */
    public List<ConsumerRecord<String, byte[]>> readUntil(String topic, Predicate<ConsumerRecord<String, byte[]>> filter,
            Predicate<List<ConsumerRecord<String, byte[]>>> enough, Duration timeout) {
        Map<String, Object> props = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "reader-" + UUID.randomUUID(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (var consumer = new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
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

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(2));
    }
}
