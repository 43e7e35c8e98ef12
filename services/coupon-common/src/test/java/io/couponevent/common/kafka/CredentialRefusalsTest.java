package io.couponevent.common.kafka;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CredentialRefusalsTest {

	private static final long S = 1_000_000_000L;

	private final CredentialRefusals refusals = new CredentialRefusals(Duration.ofSeconds(60), 0);

	@Test
	void refusedForTheWholeBoundIsHopeless() {
		this.refusals.refused();
		assertThat(this.refusals.hopeless(59 * S)).isFalse();
		assertThat(this.refusals.hopeless(60 * S)).isTrue();
	}

	@Test
	void anAnswerStartsTheBoundAgain() {
		this.refusals.refused();
		this.refusals.answered(50 * S);
		assertThat(this.refusals.hopeless(70 * S)).isFalse();
		this.refusals.refused();
		assertThat(this.refusals.hopeless(109 * S)).isFalse();
		assertThat(this.refusals.hopeless(110 * S)).isTrue();
	}

	@Test
	void brokersThatDoNotAnswerAreNoReasonToRestart() {
		// Timeouts alone (brokers down, a partition): a restart would not bring them
		// back.
		assertThat(this.refusals.hopeless(3600 * S)).isFalse();
	}

	@Test
	void oneRefusalAmongTimeoutsCounts() {
		// The admin client reports an authentication failure to some calls and times the
		// others out, so the refusal need not be the latest failure.
		this.refusals.refused();
		assertThat(this.refusals.hopeless(61 * S)).isTrue();
	}

}
