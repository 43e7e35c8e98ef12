package io.couponevent.consumer.replay;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

import io.couponevent.common.kafka.CouponKafkaProperties;
import io.couponevent.consumer.config.ConsumerProperties;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.support.SendResult;
import org.springframework.stereotype.Service;

/**
 * Moves dead letters back onto the issuance topic once their cause is fixed (say, the
 * coupon now exists). Reads every partition of the dead-letter topic from the replay
 * group's committed position up to the end seen when the replay started (records
 * dead-lettered again during the replay wait for the next one, so a replay always ends),
 * republishes each record's original key and value, and commits after each acknowledged
 * poll. A failed send stops its partition there, uncommitted. Republishing twice is
 * harmless: the listener treats an already persisted event as a duplicate.
 */
@Service
public class DeadLetterReplayer {

	private static final Logger log = LoggerFactory.getLogger(DeadLetterReplayer.class);

	private static final Duration POLL = Duration.ofMillis(500);

	private static final Duration SEND_WAIT = Duration.ofSeconds(30);

	private final ConsumerFactory<?, ?> consumerFactory;

	private final KafkaTemplate<Object, Object> template;

	private final CouponKafkaProperties topics;

	private final ConsumerProperties.Replay settings;

	private final ReentrantLock running = new ReentrantLock();

	public DeadLetterReplayer(ConsumerFactory<?, ?> consumerFactory, KafkaTemplate<Object, Object> template,
			CouponKafkaProperties topics, ConsumerProperties props) {
		this.consumerFactory = consumerFactory;
		this.template = template;
		this.topics = topics;
		this.settings = props.replay();
	}

	/**
	 * @throws ReplayInProgressException when another replay is running in this pod
	 */
	public ReplayResult replay() {
		if (!running.tryLock()) {
			throw new ReplayInProgressException();
		}
		try (Consumer<String, byte[]> consumer = openConsumer()) {
			return replayWith(consumer);
		}
		finally {
			running.unlock();
		}
	}

	@SuppressWarnings("unchecked")
	private Consumer<String, byte[]> openConsumer() {
		Properties raw = new Properties();
		raw.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
		raw.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
		raw.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
		raw.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
		Consumer<?, ?> consumer = consumerFactory.createConsumer(settings.groupId(), "dlt-replay", null, raw);
		return (Consumer<String, byte[]>) consumer;
	}

	private ReplayResult replayWith(Consumer<String, byte[]> consumer) {
		List<TopicPartition> partitions = new ArrayList<>();
		for (PartitionInfo info : consumer.partitionsFor(topics.deadLetterTopic(), SEND_WAIT)) {
			partitions.add(new TopicPartition(info.topic(), info.partition()));
		}
		// Assigned, not subscribed: no group rebalance, only the group's committed
		// offsets are used.
		consumer.assign(partitions);
		Map<TopicPartition, Long> end = consumer.endOffsets(partitions, SEND_WAIT);
		Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(new HashSet<>(partitions), SEND_WAIT);
		Set<TopicPartition> pending = new HashSet<>();
		for (TopicPartition tp : partitions) {
			OffsetAndMetadata at = committed.get(tp);
			if (at == null) {
				consumer.seekToBeginning(List.of(tp));
			}
			else {
				consumer.seek(tp, at.offset());
			}
			if (consumer.position(tp, SEND_WAIT) < end.get(tp)) {
				pending.add(tp);
			}
		}
		consumer.pause(partitions.stream().filter(tp -> !pending.contains(tp)).toList());

		long replayed = 0;
		long failed = 0;
		Instant deadline = Instant.now().plus(settings.timeout());
		while (!pending.isEmpty() && Instant.now().isBefore(deadline)) {
			Map<TopicPartition, List<ConsumerRecord<String, byte[]>>> batch = new HashMap<>();
			for (ConsumerRecord<String, byte[]> record : consumer.poll(POLL)) {
				TopicPartition tp = new TopicPartition(record.topic(), record.partition());
				if (pending.contains(tp) && record.offset() < end.get(tp)) {
					batch.computeIfAbsent(tp, k -> new ArrayList<>()).add(record);
				}
			}
			Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
			for (var entry : batch.entrySet()) {
				TopicPartition tp = entry.getKey();
				List<CompletableFuture<SendResult<Object, Object>>> sends = new ArrayList<>();
				for (ConsumerRecord<String, byte[]> record : entry.getValue()) {
					sends.add(template.send(new ProducerRecord<>(topics.topic(), record.key(), record.value())));
				}
				long nextOffset = -1;
				for (int i = 0; i < sends.size(); i++) {
					if (!acknowledged(sends.get(i))) {
						failed += sends.size() - i;
						// Stop this partition at the first failure; the rest is replayed
						// next time.
						pending.remove(tp);
						consumer.pause(List.of(tp));
						break;
					}
					replayed++;
					nextOffset = entry.getValue().get(i).offset() + 1;
				}
				if (nextOffset >= 0) {
					commit.put(tp, new OffsetAndMetadata(nextOffset));
				}
			}
			if (!commit.isEmpty()) {
				consumer.commitSync(commit, SEND_WAIT);
			}
			for (TopicPartition tp : List.copyOf(pending)) {
				if (consumer.position(tp, SEND_WAIT) >= end.get(tp)) {
					pending.remove(tp);
					consumer.pause(List.of(tp));
				}
			}
		}
		log.info("Dead-letter replay: {} replayed, {} failed, {} partitions left for the next replay", replayed, failed,
				pending.size());
		return new ReplayResult(replayed, failed);
	}

	private static boolean acknowledged(CompletableFuture<SendResult<Object, Object>> send) {
		try {
			send.get(SEND_WAIT.toMillis(), TimeUnit.MILLISECONDS);
			return true;
		}
		catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			return false;
		}
		catch (ExecutionException | TimeoutException e) {
			log.warn("Replay send failed: {}", e.getMessage());
			return false;
		}
	}

}
