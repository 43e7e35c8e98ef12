package io.couponevent.common.jdbc;

import java.time.Instant;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SqlDateTimeTest {

	@Test
	void keepsMillisecondsAndWritesUtc() {
		assertThat(SqlDateTime.of(Instant.parse("2026-11-21T20:20:34.315Z"))).isEqualTo("2026-11-21 20:20:34.315");
	}

	@Test
	void wholeSecondsStillCarryTheFraction() {
		assertThat(SqlDateTime.of(Instant.parse("2026-01-02T03:04:05Z"))).isEqualTo("2026-01-02 03:04:05.000");
	}

	@Test
	void dropsSubMillisecondDigitsLikeTheColumnDoes() {
		assertThat(SqlDateTime.of(Instant.parse("2026-11-21T20:20:34.315999Z"))).isEqualTo("2026-11-21 20:20:34.315");
	}

}
