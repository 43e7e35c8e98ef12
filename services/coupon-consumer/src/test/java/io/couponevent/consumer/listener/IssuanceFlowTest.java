package io.couponevent.consumer.listener;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
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
import io.couponevent.testsupport.Tokens;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Kafka → listener → MySQL, dead letters and their replay, on the real harness. Replay
 * runs last: it republishes every dead letter of this run, which would add copies to the
 * earlier tests' view.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class IssuanceFlowTest extends IntegrationTest {

	private static final Duration WAIT = Duration.ofSeconds(60);

	private static Kafka kafka;

	@Autowired
	DataSource dataSource;

	@Autowired
	MeterRegistry meters;

	@Value("${local.server.port}")
	int port;

	@BeforeAll
	static void producer(@Value("${spring.kafka.bootstrap-servers}") String bootstrap) {
		kafka = new Kafka(bootstrap);
	}

	@AfterAll
	static void close() {
		kafka.close();
	}

	private static IssuanceEvent event(long coupon, String user, int slot) {
		return new IssuanceEvent(UUID.randomUUID(), coupon, user, slot, Instant.now().truncatedTo(ChronoUnit.MILLIS));
	}

	private static void send(int partition, IssuanceEvent event) throws Exception {
		kafka.send(TOPIC, partition, event.key(), IssuanceEventJson.toBytes(event));
	}

	private Database db() {
		return Database.of(dataSource);
	}

	private long awaitRows(long coupon, int expected) throws InterruptedException {
		return Eventually.await(WAIT, () -> db().rows(coupon), n -> n >= expected);
	}

	private double duplicates() {
		return meters.get("coupon.consumer.duplicates").counter().count();
	}

	private List<ConsumerRecord<String, byte[]>> deadLetters(long coupon, int expected) {
		return kafka.readUntil(DLT, r -> r.key() != null && r.key().startsWith(coupon + ":"),
				list -> list.size() >= expected, WAIT);
	}

	private static String header(ConsumerRecord<?, ?> record, String name) {
		Header header = record.headers().lastHeader(name);
		return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
	}

	@Test
	@Order(1)
	void redeliveredBatchAddsNothing() throws Exception {
		long coupon = Harness.uniqueCouponId();
		db().createCoupon(coupon, 20);
		List<IssuanceEvent> events = new ArrayList<>();
		for (int i = 1; i <= 10; i++) {
			events.add(event(coupon, "user-" + i, i));
		}
		for (IssuanceEvent e : events) {
			send(e.slot() % 3, e);
		}
		assertThat(awaitRows(coupon, 10)).isEqualTo(10);
		double duplicatesBefore = duplicates();

		// The same records again, as after a crash between the DB commit and the offset
		// commit.
		for (IssuanceEvent e : events) {
			send(e.slot() % 3, e);
		}
		double seen = Eventually.await(WAIT, this::duplicates, d -> d >= duplicatesBefore + 10);
		assertThat(seen - duplicatesBefore).isEqualTo(10);
		assertThat(db().rows(coupon)).isEqualTo(10);
	}

	@Test
	@Order(2)
	void poisonAndConflictGoToTheDeadLetterTopicAndThePartitionKeepsFlowing() throws Exception {
		long coupon = Harness.uniqueCouponId();
		db().createCoupon(coupon, 5);
		send(0, event(coupon, "owner", 1));
		assertThat(awaitRows(coupon, 1)).isEqualTo(1);

		byte[] poison = "{\"eventId\": not json".getBytes(StandardCharsets.UTF_8);
		kafka.send(TOPIC, 0, coupon + ":poison", poison);
		IssuanceEvent thief = event(coupon, "thief", 1);
		send(0, thief);
		// Behind both bad records on the same partition.
		send(0, event(coupon, "later-1", 2));
		send(0, event(coupon, "later-2", 3));

		assertThat(awaitRows(coupon, 3)).isEqualTo(3);
		assertThat(db().holderOfSlot(coupon, 1)).isEqualTo("owner");
		assertThat(db().holderOfSlot(coupon, 3)).isEqualTo("later-2");

		List<ConsumerRecord<String, byte[]>> dead = deadLetters(coupon, 2);
		assertThat(dead).hasSize(2);
		ConsumerRecord<String, byte[]> poisoned = dead.stream()
			.filter(r -> r.key().endsWith(":poison"))
			.findFirst()
			.orElseThrow();
		assertThat(header(poisoned, DeadLetterRecoverer.REASON_HEADER)).isEqualTo("poison");
		assertThat(poisoned.value()).isEqualTo(poison);
		assertThat(header(poisoned, "kafka_dlt-original-topic")).isEqualTo(TOPIC);
		assertThat(header(poisoned, "kafka_dlt-exception-fqcn")).isNotBlank();

		ConsumerRecord<String, byte[]> conflicted = dead.stream()
			.filter(r -> r.key().equals(thief.key()))
			.findFirst()
			.orElseThrow();
		assertThat(header(conflicted, DeadLetterRecoverer.REASON_HEADER)).isEqualTo("slot_conflict");
		assertThat(header(conflicted, "kafka_dlt-exception-message")).contains("held by another user");
		assertThat(IssuanceEventJson.fromBytes(conflicted.value())).isEqualTo(thief);

		assertThat(meters.get("coupon.dlq.records").tag("reason", "poison").counter().count()).isPositive();
		assertThat(meters.get("coupon.dlq.records").tag("reason", "slot_conflict").counter().count()).isPositive();
	}

	@Test
	@Order(4)
	void replayPersistsADeadLetterOnceItsCauseIsFixed() throws Exception {
		long coupon = Harness.uniqueCouponId();
		IssuanceEvent early = event(coupon, "early-bird", 1);
		send(1, early);
		List<ConsumerRecord<String, byte[]>> dead = deadLetters(coupon, 1);
		assertThat(dead).hasSize(1);
		assertThat(header(dead.getFirst(), DeadLetterRecoverer.REASON_HEADER)).isEqualTo("unknown_coupon");
		assertThat(db().rows(coupon)).isZero();

		db().createCoupon(coupon, 1);
		HttpResponse<String> response = replay(Tokens.admin("ops"));
		assertThat(response.statusCode()).isEqualTo(200);
		JsonNode result = IssuanceEventJson.mapper().readTree(response.body());
		assertThat(result.get("replayed").asLong()).isPositive();
		assertThat(result.get("failed").asLong()).isZero();

		assertThat(awaitRows(coupon, 1)).isEqualTo(1);
		assertThat(db().holderOfSlot(coupon, 1)).isEqualTo("early-bird");

		// Everything up to the end was committed for the replay group: a second replay
		// has nothing old.
		HttpResponse<String> again = replay(Tokens.admin("ops"));
		assertThat(again.statusCode()).isEqualTo(200);
		assertThat(db().rows(coupon)).isEqualTo(1);
	}

	@Test
	@Order(3)
	void replayNeedsAnAdminToken() throws Exception {
		HttpResponse<String> anonymous = replay(null);
		assertThat(anonymous.statusCode()).isEqualTo(401);
		assertThat(anonymous.headers().firstValue("Content-Type"))
			.hasValueSatisfying(v -> assertThat(v).startsWith("application/problem+json"));
		assertThat(anonymous.body()).contains("\"code\":\"UNAUTHENTICATED\"");

		HttpResponse<String> user = replay(Tokens.token("user-1", List.of("user")));
		assertThat(user.statusCode()).isEqualTo(403);
		assertThat(user.body()).contains("\"code\":\"FORBIDDEN\"");

		HttpResponse<String> forged = replay(Tokens.admin("ops") + "x");
		assertThat(forged.statusCode()).isEqualTo(401);
	}

	private HttpResponse<String> replay(String token) throws Exception {
		HttpRequest.Builder request = HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/admin/dead-letters/replay"))
			.timeout(Duration.ofSeconds(60))
			.POST(HttpRequest.BodyPublishers.noBody());
		if (token != null) {
			request.header("Authorization", "Bearer " + token);
		}
		try (HttpClient http = HttpClient.newHttpClient()) {
			return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
		}
	}

}
