package io.couponevent.waitingroom;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.couponevent.waitingroom.config.Mode;
import io.couponevent.waitingroom.config.WaitingRoomProperties;
import io.couponevent.waitingroom.config.WaitingRoomProperties.ZoneConfig;
import io.couponevent.waitingroom.config.WaitingRoomProperties.ZoneSettings;
import org.junit.jupiter.api.Test;

import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class WaitingRoomPropertiesTest {

	private static final URI API = URI.create("http://127.0.0.1:8080");

	@Test
	void defaultsFillWhatIsNotSet() {
		WaitingRoomProperties p = new WaitingRoomProperties(null, API, new ZoneSettings(600, null, null, null, null),
				null, null, null);
		assertThat(p.defaults().budgetPerMinute()).isEqualTo(600);
		assertThat(p.defaults().subWindow()).isEqualTo(Duration.ofSeconds(6));
		assertThat(p.defaults().mode()).isEqualTo(Mode.AUTO);
		assertThat(p.sweepEvery()).isEqualTo(Duration.ofSeconds(30));
		assertThat(p.issuanceRedis().nodes()).isEmpty();
		assertThat(p.connectionBuffer()).isEqualTo(DataSize.ofKilobytes(2));
	}

	@Test
	void aZoneOverridesTheDefaults() {
		ZoneConfig zone = new ZoneConfig(List.of(1L, 2L), 60, null, Mode.ON, null, null);
		WaitingRoomProperties p = new WaitingRoomProperties(null, API, null, null, Map.of("screens", zone), null);
		ZoneSettings s = p.zones().get("screens").settingsOver(p.defaults());
		assertThat(s.budgetPerMinute()).isEqualTo(60);
		assertThat(s.mode()).isEqualTo(Mode.ON);
		assertThat(s.purgeAfter()).isEqualTo(Duration.ofSeconds(60));
	}

	@Test
	void badValuesFailTheStart() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new WaitingRoomProperties(null, null, null, null, null, null));
		assertThatIllegalArgumentException().isThrownBy(() -> new ZoneSettings(0, null, null, null, null));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ZoneSettings(null, Duration.ofMillis(10), null, null, null));
		assertThatIllegalArgumentException().isThrownBy(() -> new WaitingRoomProperties(null, API, null, null,
				Map.of("Bad Name", new ZoneConfig(List.of(1L), null, null, null, null, null)), null));
		assertThatIllegalArgumentException().isThrownBy(() -> new WaitingRoomProperties(null, API, null, null,
				Map.of("empty", new ZoneConfig(List.of(), null, null, null, null, null)), null));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new WaitingRoomProperties(null, API, null, null, null, DataSize.ofBytes(100)));
	}

}
