package io.couponevent.waitingroom.config;

import java.util.Locale;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * The order of users who queued before the opening: shuffled at the opening (arriving
 * early buys nothing, so nobody camps or scripts the first millisecond), or strict
 * arrival order.
 */
public enum PreQueue {

	SHUFFLE, STRICT;

	@JsonValue
	public String wire() {
		return name().toLowerCase(Locale.ROOT);
	}

	@JsonCreator
	public static PreQueue of(String value) {
		return valueOf(value.trim().toUpperCase(Locale.ROOT));
	}

}
