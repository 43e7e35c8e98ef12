package io.couponevent.api.issuance;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.couponevent.api.config.IssuanceProperties;
import io.couponevent.api.support.Api;
import io.couponevent.api.support.Api.Reply;
import io.couponevent.testsupport.Harness;
import io.couponevent.testsupport.Kafka;
import io.couponevent.testsupport.RequiresHarness;
import io.couponevent.testsupport.Tokens;
import io.micrometer.core.instrument.MeterRegistry;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With every broker stopped, an issuance cannot be acknowledged: the user's reservation
 * is released and the user gets 503 with Retry-After, within the send timeout. The slot
 * of a send that may still land (a timed-out batch may have been appended) is held, not
 * reused, until the reconciler settles it; a send refused before it left the producer
 * returns its unit.
 */
@RequiresHarness
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class KafkaOutageTest {

	@Autowired
	Environment env;

	@Autowired
	ReservationStore store;

	@Autowired
	MeterRegistry meters;

	@Autowired
	IssuanceProperties issuance;

	@BeforeAll
	static void topic() throws Exception {
		Kafka.ensureIssuanceTopic();
	}

	@Test
	void failedSendReleasesTheReservation() throws Exception {
		Duration sendTimeout = issuance.sendTimeout();
		Api api = new Api(env.getRequiredProperty("local.server.port", Integer.class));
		long id = Harness.uniqueCouponId();
		Instant now = Instant.now();
		assertThat(api.putCoupon(id, Tokens.admin("ops"), "outage", 10, now.minusSeconds(60), now.plusSeconds(3600))
			.status()).isEqualTo(201);
		// One accepted issuance first (it also warms the producer). On a starved machine
		// even this may be shed; each shed try holds a slot, so the expectations below
		// are relative to this state.
		assertThat(issueUntilAccepted(api, id, "before-" + UUID.randomUUID()).status()).isEqualTo(202);
		Set<Integer> heldBefore = heldSlots(id);
		long countBefore = store.issuedCount(id);
		double compensationsBefore = compensations();
		String user = "during-" + UUID.randomUUID();

		Harness.infra("kafka-stop");
		Throwable failure = null;
		try {
			long start = System.nanoTime();
			Reply refused = api.issue(id, Tokens.user(user));
			long clientMillis = (System.nanoTime() - start) / 1_000_000;
			// Soft: one slow run on a starved machine costs many minutes, so report every
			// deviation at once.
			SoftAssertions softly = new SoftAssertions();
			softly.assertThat(refused.status()).as(refused.raw()).isEqualTo(503);
			softly.assertThat(refused.code()).isEqualTo("UNAVAILABLE");
			softly.assertThat(refused.retryAfter()).isEqualTo("1");
			// The bound is the service's promise, so it is read from the service's own
			// timer (the client's clock also counts the machine's scheduling delays,
			// shown in the message).
			double serverMillis = meters.get("coupon.issuance.duration")
				.tag("result", "shed")
				.timer()
				.max(TimeUnit.MILLISECONDS);
			softly.assertThat(serverMillis)
				.as("server time bounded by coupon.issuance.send-timeout (%s in tests) plus slack; client saw %d ms",
						sendTimeout, clientMillis)
				.isLessThan(sendTimeout.toMillis() + 3000);
			softly.assertThat(store.find(id, user)).as("the user's reservation released").isEmpty();
			// A batch that may still reach a leader keeps its slot held, not handed to
			// anyone else, until the reconciler has seen whether its row appears in
			// MySQL. A send refused before the record left the producer (its metadata
			// gone with the brokers) cannot land, and its unit is released. Either way a
			// unit stays taken exactly while its slot is held.
			Set<Integer> newlyHeld = new HashSet<>(heldSlots(id));
			newlyHeld.removeAll(heldBefore);
			softly.assertThat(newlyHeld).as("at most the refused request's slot is held").hasSizeLessThanOrEqualTo(1);
			softly.assertThat(store.issuedCount(id))
				.as("the unit stays taken exactly when its slot is held (held: %s)", newlyHeld)
				.isEqualTo(countBefore + newlyHeld.size());
			softly.assertThat(compensations()).isEqualTo(compensationsBefore + 1);
			softly.assertAll();
		}
		catch (Throwable t) {
			failure = t;
			throw t;
		}
		finally {
			// A failing restart must not hide the assertion that failed during the
			// outage.
			try {
				Harness.infra("kafka-start");
			}
			catch (RuntimeException e) {
				if (failure == null) {
					throw e;
				}
				failure.addSuppressed(e);
			}
		}
		// Once Kafka is back the user's retry is a new attempt, on a slot that is not
		// held.
		Reply accepted = issueUntilAccepted(api, id, user);
		assertThat(accepted.status()).as(accepted.raw()).isEqualTo(202);
		int slot = store.find(id, user).orElseThrow().slot();
		assertThat(heldSlots(id)).as("a held slot is never handed out").doesNotContain(slot);
	}

	/**
	 * Retries a shed (503) answer for up to a minute, as a client honouring Retry-After
	 * would.
	 */
	private static Reply issueUntilAccepted(Api api, long id, String user) throws Exception {
		Reply reply = null;
		for (int attempt = 0; attempt < 60; attempt++) {
			reply = api.issue(id, Tokens.user(user));
			if (reply.status() != 503) {
				break;
			}
			Thread.sleep(1000);
		}
		return reply;
	}

	private Set<Integer> heldSlots(long id) {
		return store.all(id).stream().filter(Reservation::held).map(Reservation::slot).collect(Collectors.toSet());
	}

	private double compensations() {
		return meters.find("coupon.compensations").counters().stream().mapToDouble(c -> c.count()).sum();
	}

}
