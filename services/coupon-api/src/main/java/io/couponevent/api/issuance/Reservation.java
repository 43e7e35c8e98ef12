package io.couponevent.api.issuance;

import java.time.Instant;

/** A user's reservation as Redis holds it: {@code "slot:reservedAtMs"}. */
public record Reservation(String userId, int slot, Instant reservedAt) {

	/**
	 * Field prefix of a held slot: a compensated send that may still land keeps its slot
	 * under a placeholder instead of a user. The unit separator cannot start a JWT
	 * {@code sub} (the security configuration refuses control characters), so a
	 * placeholder never collides with a user.
	 */
	public static final String HELD_PREFIX = "\u001Fheld:";

	public static String heldField(int slot) {
		return HELD_PREFIX + slot;
	}

	/** True for a held slot's placeholder, false for a user's reservation. */
	public boolean held() {
		return userId.startsWith(HELD_PREFIX);
	}

	static Reservation parse(String userId, String value) {
		int sep = value.indexOf(':');
		return new Reservation(userId, Integer.parseInt(value.substring(0, sep)),
				Instant.ofEpochMilli(Long.parseLong(value.substring(sep + 1))));
	}

	String encoded() {
		return slot + ":" + reservedAt.toEpochMilli();
	}
}
