package io.couponevent.common.redis;

import io.couponevent.common.entry.EntryGate;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class KeyPrefixTest {

	@Test
	void unsetIsTodaysKeys() {
		assertThat(KeyPrefix.of(null)).isEmpty();
		assertThat(EntryGate.key(KeyPrefix.of(""), 42)).isEqualTo("{coupon:42}:gate");
	}

	@Test
	void thePrefixStaysOutsideTheHashTag() {
		String gate = EntryGate.key(KeyPrefix.of("spring-sale:"), 42);
		assertThat(gate).isEqualTo("spring-sale:{coupon:42}:gate");
		assertThat(SlotHash.getSlot(gate)).isEqualTo(SlotHash.getSlot("{coupon:42}:meta"));
	}

	@Test
	void aHashTagOrSpaceIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> KeyPrefix.of("{event}:"))
			.withMessageContaining("coupon.redis.key-prefix");
		assertThatIllegalArgumentException().isThrownBy(() -> KeyPrefix.of("an event"));
	}

}
