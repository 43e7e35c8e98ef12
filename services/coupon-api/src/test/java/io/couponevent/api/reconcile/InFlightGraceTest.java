package io.couponevent.api.reconcile;

import java.time.Duration;

import io.couponevent.api.config.IssuanceProperties;
import io.couponevent.api.config.ReconcilerProperties;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A held record can be delivered up to the producer's delivery timeout after its send and
 * commit up to the commit lag after that: the reconciler must not call it stale sooner,
 * and lost state waits for every send in flight to end.
 */
class InFlightGraceTest {

	private static IssuanceProperties issuance(Duration delivery) {
		return new IssuanceProperties(Duration.ofSeconds(2), delivery, Duration.ofSeconds(1), 256,
				Duration.ofMillis(500));
	}

	private static ReconcilerProperties reconciler(Duration staleAfter) {
		return new ReconcilerProperties(true, Duration.ofSeconds(2), staleAfter, Duration.ofSeconds(30),
				Duration.ofSeconds(30));
	}

	@Test
	void lostStateWaitsForTheDeliveryTimeout() {
		assertThat(Reconciler.inFlightGrace(issuance(Duration.ofSeconds(6)), reconciler(Duration.ofSeconds(36))))
			.isEqualTo(Duration.ofSeconds(7));
	}

	@Test
	void aStaleAfterShorterThanDeliveryAndCommitLagIsRefused() {
		assertThatIllegalStateException()
			.isThrownBy(
					() -> Reconciler.inFlightGrace(issuance(Duration.ofSeconds(6)), reconciler(Duration.ofSeconds(30))))
			.withMessageContaining("must be at least coupon.issuance.delivery-timeout + coupon.reconciler.commit-lag");
	}

}
