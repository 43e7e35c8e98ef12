package io.couponevent.consumer.listener;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.couponevent.common.IssuanceEvent;
import io.couponevent.consumer.deadletter.DeadLetterRecoverer;
import io.couponevent.consumer.metrics.ConsumerMetrics;
import io.couponevent.consumer.persist.DeadLetterReason;
import io.couponevent.consumer.persist.IssuancePersister;
import io.couponevent.consumer.persist.IssuanceRejectedException;
import io.couponevent.consumer.persist.Outcome;
import io.couponevent.consumer.persist.WriteRateLimiter;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.log.LogAccessor;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.support.serializer.DeserializationException;
import org.springframework.kafka.support.serializer.SerializationUtils;
import org.springframework.stereotype.Component;

/**
 * Persists each poll's batch of issuance events with one JDBC batch. Records that can
 * never be persisted (poison JSON, slot conflicts, unknown coupons) are dead-lettered
 * here, one by one, so the rest of the batch and the partition keep flowing. Anything
 * else (the database unreachable or read-only, the dead-letter topic unreachable)
 * propagates: the container's error handler retries the whole batch with back-off
 * ({@code KafkaConfig}), and the offsets are committed only after the listener returns,
 * i.e. after the rows are committed (ack mode BATCH). Redelivery is harmless: persisted
 * events come back as duplicates.
 */
@Component
public class IssuanceBatchListener {

	/** Listener container id, also the default consumer group. */
	public static final String ID = "coupon-consumer";

	private static final Logger log = LoggerFactory.getLogger(IssuanceBatchListener.class);

	/** Only what Spring Kafka's header lookup takes to report an unreadable header. */
	private static final LogAccessor HEADER_LOG = new LogAccessor(IssuanceBatchListener.class);

	private final IssuancePersister persister;

	private final DeadLetterRecoverer deadLetters;

	private final Optional<WriteRateLimiter> rateLimiter;

	private final ConsumerMetrics metrics;

	private final Clock clock;

	public IssuanceBatchListener(IssuancePersister persister, DeadLetterRecoverer deadLetters,
			Optional<WriteRateLimiter> rateLimiter, ConsumerMetrics metrics, Clock clock) {
		this.persister = persister;
		this.deadLetters = deadLetters;
		this.rateLimiter = rateLimiter;
		this.metrics = metrics;
		this.clock = clock;
	}

	@KafkaListener(id = ID, groupId = "${spring.kafka.consumer.group-id:" + ID + "}", topics = "${coupon.kafka.topic}",
			batch = "true", autoStartup = "${coupon.consumer.auto-startup:true}")
	public void onBatch(List<ConsumerRecord<String, IssuanceEvent>> records, Consumer<?, ?> consumer) {
		metrics.batch(records.size());
		List<ConsumerRecord<String, IssuanceEvent>> readable = new ArrayList<>(records.size());
		for (ConsumerRecord<String, IssuanceEvent> record : records) {
			if (record.value() != null) {
				readable.add(record);
			}
			else {
				deadLetters.accept(record, consumer, poisonCause(record));
			}
		}
		if (readable.isEmpty()) {
			return;
		}
		throttle(readable.size());
		List<Outcome> outcomes = persister.persist(readable.stream().map(ConsumerRecord::value).toList());
		Instant committedAt = clock.instant();
		for (int i = 0; i < outcomes.size(); i++) {
			switch (outcomes.get(i)) {
				case Outcome.Inserted inserted ->
					metrics.inserted(inserted.event().couponId(), inserted.event().reservedAt(), committedAt);
				case Outcome.Duplicate duplicate -> metrics.duplicate();
				case Outcome.Rejected rejected -> {
					ConsumerRecord<String, IssuanceEvent> record = readable.get(i);
					log.warn("Dead-lettering {}-{}@{}: {}", record.topic(), record.partition(), record.offset(),
							rejected.cause().getMessage());
					deadLetters.accept(record, consumer, rejected.cause());
				}
			}
		}
	}

	private void throttle(int rows) {
		if (rateLimiter.isEmpty()) {
			return;
		}
		try {
			rateLimiter.get().acquire(rows);
		}
		catch (InterruptedException e) {
			// Stopping: leave the batch uncommitted, it is redelivered to whoever gets
			// the partition.
			Thread.currentThread().interrupt();
			throw new RetryLaterException("interrupted while throttling writes", e);
		}
	}

	/**
	 * The deserializer's exception, carried in a header by
	 * {@code ErrorHandlingDeserializer}.
	 */
	private static Exception poisonCause(ConsumerRecord<?, ?> record) {
		DeserializationException failure = SerializationUtils.getExceptionFromHeader(record,
				SerializationUtils.VALUE_DESERIALIZER_EXCEPTION_HEADER, HEADER_LOG);
		return failure != null ? failure
				: new IssuanceRejectedException(DeadLetterReason.POISON, "record has no value");
	}

}
