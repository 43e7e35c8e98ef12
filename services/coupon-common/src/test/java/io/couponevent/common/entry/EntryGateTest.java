package io.couponevent.common.entry;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class EntryGateTest {

	private static final String SECRET = "entry-secret-for-tests-0123456789abcdef";

	private final EntryGate gate = new EntryGate(SECRET);

	private final Instant now = Instant.parse("2026-01-01T10:00:00Z");

	@Test
	void admitsItsUserToItsCouponUntilItExpires() {
		String token = this.gate.issue("user-ü 1", 42, this.now.plusSeconds(60));
		assertThat(this.gate.admits(token, "user-ü 1", 42, this.now)).isTrue();
		assertThat(this.gate.admits(token, "user-ü 1", 42, this.now.plusSeconds(59))).isTrue();
		assertThat(this.gate.admits(token, "user-ü 1", 42, this.now.plusSeconds(60))).isFalse();
	}

	@Test
	void refusesAnotherUserOrCoupon() {
		String token = this.gate.issue("alice", 42, this.now.plusSeconds(60));
		assertThat(this.gate.admits(token, "bob", 42, this.now)).isFalse();
		assertThat(this.gate.admits(token, "alice", 43, this.now)).isFalse();
	}

	@Test
	void refusesForgedAndMalformedTokens() {
		String token = this.gate.issue("alice", 42, this.now.plusSeconds(60));
		EntryGate other = new EntryGate("another-secret-0123456789abcdef-xyz");
		assertThat(this.gate.admits(other.issue("alice", 42, this.now.plusSeconds(60)), "alice", 42, this.now))
			.isFalse();
		// Extending the expiry without the key breaks the signature.
		String[] parts = token.split("\\.");
		String longer = String.join(".", parts[0], parts[1], Long.toString(this.now.plusSeconds(9999).getEpochSecond()),
				parts[3], parts[4]);
		assertThat(this.gate.admits(longer, "alice", 42, this.now)).isFalse();
		for (String bad : new String[] { null, "", ".", "v1", "v1.42", "v2.42.1.YQ.x", token + "x", "a.b.c.d.e.f",
				"v1.42.notanumber.YWxpY2U.AAAA", "x".repeat(600) }) {
			assertThat(this.gate.admits(bad, "alice", 42, this.now)).as(String.valueOf(bad)).isFalse();
		}
	}

	@Test
	void gateKeySharesTheCouponsHashSlot() {
		assertThat(EntryGate.key(42)).isEqualTo("{coupon:42}:gate");
	}

	@Test
	void propertiesValidateTheSecret() {
		assertThat(new EntryProperties(null, null).enabled()).isFalse();
		assertThat(new EntryProperties("  ", null).enabled()).isFalse();
		assertThat(new EntryProperties(SECRET, null).ttl()).isEqualTo(Duration.ofMinutes(2));
		assertThatIllegalArgumentException().isThrownBy(() -> new EntryProperties("short", null));
		assertThatIllegalArgumentException().isThrownBy(() -> new EntryProperties(SECRET, Duration.ZERO));
	}

}
