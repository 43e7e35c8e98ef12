package io.couponevent.consumer.listener;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import io.couponevent.common.IssuanceEvent;
import io.couponevent.common.kafka.IssuanceEventJson;
import io.couponevent.consumer.deadletter.DeadLetterRecoverer;
import io.couponevent.consumer.support.IntegrationTest;
import io.couponevent.testsupport.Database;
import io.couponevent.testsupport.Eventually;
import io.couponevent.testsupport.Harness;
import io.couponevent.testsupport.Kafka;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A database that refuses writes for a while, as a managed MySQL does right after a
 * failover demotes the writer (error 1290, read-only): the batch waits and is retried
 * until the writes are accepted again, nothing is dead-lettered. Staged on the harness's
 * MariaDB with {@code local/infra.sh mariadb-read-only on|off}.
 */
class ReadOnlyDatabaseTest extends IntegrationTest {

	private static final Duration WAIT = Duration.ofSeconds(60);

	@Autowired
	DataSource dataSource;

	@Autowired
	MeterRegistry meters;

	private long batches() {
		return meters.get("coupon.consumer.batch.size").summary().count();
	}

	/** Each dead letter as its key and reason. */
	private static List<String> described(List<ConsumerRecord<String, String>> deadLetters) {
		return deadLetters.stream().map((record) -> {
			Header reason = record.headers().lastHeader(DeadLetterRecoverer.REASON_HEADER);
			return record.key() + " " + (reason == null ? "?" : new String(reason.value(), StandardCharsets.UTF_8));
		}).toList();
	}

	@Test
	void aReadOnlyDatabaseDelaysTheBatchAndDeadLettersNothing(
			@Value("${spring.kafka.bootstrap-servers}") String bootstrap) throws Exception {
		Database db = Database.of(dataSource);
		long coupon = Harness.uniqueCouponId();
		db.createCoupon(coupon, 10);
		try (Kafka kafka = new Kafka(bootstrap); Kafka.Probe deadLetters = kafka.probe(DLT)) {
			long batchesBefore = batches();
			Harness.infra("mariadb-read-only", "on");
			try {
				for (int slot = 1; slot <= 10; slot++) {
					IssuanceEvent event = new IssuanceEvent(UUID.randomUUID(), coupon, "user-" + slot, slot,
							Instant.now().truncatedTo(ChronoUnit.MILLIS));
					kafka.send(TOPIC, slot % 3, event.key(), IssuanceEventJson.toBytes(event));
				}
				// Ten records make at most ten batches: an eleventh means that a refused
				// batch was handed to the listener again, i.e. retried.
				Eventually.await(WAIT, this::batches, n -> n >= batchesBefore + 11);
				assertThat(described(deadLetters.recordsFor(coupon, Duration.ofSeconds(3))))
					.as("records dead-lettered while the database was read-only")
					.isEmpty();
				assertThat(db.rows(coupon)).isZero();
			}
			finally {
				Harness.infra("mariadb-read-only", "off");
			}
			assertThat(Eventually.await(WAIT, () -> db.rows(coupon), n -> n >= 10)).isEqualTo(10);
			assertThat(db.users(coupon)).hasSize(10);
			assertThat(described(deadLetters.recordsFor(coupon, Duration.ofSeconds(2)))).isEmpty();
		}
	}

}
