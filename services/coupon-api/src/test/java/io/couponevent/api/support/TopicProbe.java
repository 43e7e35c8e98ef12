package io.couponevent.api.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads what lands on the issuance topic after a point in time (no consumer group, no commits). */
public final class TopicProbe implements AutoCloseable {

    private final KafkaConsumer<String, String> consumer;

    public TopicProbe() {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, Harness.kafkaBootstrap());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        consumer = new KafkaConsumer<>(props);
        List<TopicPartition> partitions = consumer.partitionsFor(Harness.TOPIC, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position); // resolve the end offsets now, before the test acts
    }

    /** Records whose key starts with {@code "<couponId>:"}, polled for {@code duration}. */
    public List<ConsumerRecord<String, String>> recordsFor(long couponId, Duration duration) {
        List<ConsumerRecord<String, String>> found = new ArrayList<>();
        long deadline = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < deadline) {
            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                if (r.key() != null && r.key().startsWith(couponId + ":")) found.add(r);
            }
        }
        return found;
    }

    @Override
    public void close() {
        consumer.close(Duration.ofSeconds(2));
    }
}
