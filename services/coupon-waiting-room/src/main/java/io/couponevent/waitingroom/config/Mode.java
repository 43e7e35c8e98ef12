package io.couponevent.waitingroom.config;

import java.util.Locale;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** When a zone queues: auto (only beyond its budget), on (always), off (never). */
public enum Mode {

	AUTO, ON, OFF;

	@JsonValue
	public String wire() {
		return name().toLowerCase(Locale.ROOT);
	}

	@JsonCreator
	public static Mode of(String value) {
		return valueOf(value.trim().toUpperCase(Locale.ROOT));
	}

}
