package io.couponevent.api.reconcile;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;

import io.couponevent.api.issuance.Decision.Outcome;
import io.couponevent.api.issuance.ReservationStore;
import io.couponevent.api.support.Api.Reply;
import io.couponevent.api.support.ApiServerTest;
import io.couponevent.common.kafka.CouponKafkaProperties;
import io.couponevent.testsupport.Harness;
import io.couponevent.testsupport.Kafka;
import io.couponevent.testsupport.Tokens;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue #37 item 5: under steady traffic the consumer group's lag is never exactly 0, yet
 * the consumer keeps up. The reconciler must still release a stale reservation once the
 * group has committed past the end offsets it saw at an earlier pass. The test plays the
 * consumer (its own group, committed by hand) and the traffic (one record before each
 * pass); the reconciler's passes are called directly.
 */
// A stale-after of 1 s needs sends bounded by 1 s and no commit lag to cover
// (Reconciler.inFlightGrace).
@TestPropertySource(properties = { "coupon.reconciler.stale-after=1s", "coupon.reconciler.commit-lag=0s",
		"coupon.issuance.send-timeout=1s", "coupon.issuance.delivery-timeout=1s",
		"coupon.kafka.consumer-group=reconciler-barrier-${random.uuid}" })
class OffsetBarrierTest extends ApiServerTest {

	@Autowired
	Reconciler reconciler;

	@Autowired
	ReservationStore store;

	@Autowired
	CouponKafkaProperties kafka;

	@Test
	void aStaleReservationIsReleasedWhileTheLagNeverReadsZero() throws Exception {
		long id = Harness.uniqueCouponId();
		Instant now = Instant.now();
		Reply created = this.api.putCoupon(id, Tokens.admin("ops"), "Coupon " + id, 1, now.minusSeconds(60),
				now.plusSeconds(3600));
		assertThat(created.status()).as(created.raw()).isEqualTo(201);
		// A process that died between reserve and send: in Redis, never in Kafka.
		assertThat(this.store.reserve(id, "ghost").outcome()).isEqualTo(Outcome.ACCEPTED);
		try (GroupAtTheEnd group = new GroupAtTheEnd(this.kafka); Kafka traffic = Kafka.harness()) {
			for (int pass = 0; pass < 4 && this.store.find(id, "ghost").isPresent(); pass++) {
				// The consumer has kept up with everything so far...
				group.commit();
				// ...and a new record arrives before the pass: the lag reads 1.
				traffic.send(this.kafka.topic(), 0, "traffic",
						("{\"pass\":" + pass + "}").getBytes(StandardCharsets.UTF_8));
				Thread.sleep(1500);
				assertThat(this.reconciler.runOnce()).as("the reconciler's lease").isTrue();
			}
		}
		assertThat(this.store.find(id, "ghost")).as("released, though the lag never read 0").isEmpty();
		assertThat(this.api.issue(id, Tokens.user("next-" + UUID.randomUUID())).status()).as("the unit is sold again")
			.isEqualTo(202);
	}

}
