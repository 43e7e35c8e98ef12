package io.couponevent.api.issuance;

import java.time.Instant;

/**
 * A user's reservation as Redis holds it: {@code "slot:reservedAtMs"}, or
 * {@code "slot:reservedAtMs:resentAtMs"} once a 409 has sent it again.
 *
 * @param resentAt when a 409 last sent the reservation again, or {@code null}
 */
public record Reservation(String userId, int slot, Instant reservedAt, Instant resentAt) {

	public Reservation(String userId, int slot, Instant reservedAt) {
		this(userId, slot, reservedAt, null);
	}

	/**
	 * When its record was last sent: a reservation is stale only long after this, not
	 * after {@link #reservedAt} (the re-send may be the one that lands).
	 */
	public Instant lastSent() {
		return resentAt == null ? reservedAt : resentAt;
	}

	/**
	 * Field prefix of a held slot: a compensated send that may still land keeps its slot
	 * under a placeholder instead of a user, {@code "\u001Fheld:<slot>:<userId>"}. The
	 * unit separator cannot start a JWT {@code sub} (the security configuration refuses
	 * control characters), so a placeholder never collides with a user.
	 */
	public static final String HELD_PREFIX = "\u001Fheld:";

	/**
	 * The placeholder of {@code userId}'s slot: the user is named so the reconciler can
	 * settle it as soon as that user's row shows where their coupon went.
	 */
	public static String heldField(int slot, String userId) {
		return HELD_PREFIX + slot + ":" + userId;
	}

	/** True for a held slot's placeholder, false for a user's reservation. */
	public boolean held() {
		return userId.startsWith(HELD_PREFIX);
	}

	/**
	 * The user whose send a placeholder holds, or {@code null} for a user's reservation
	 * and for a placeholder that names no user ({@code "\u001Fheld:<slot>"}, written by
	 * an earlier version).
	 */
	public String heldFor() {
		if (!held()) {
			return null;
		}
		int sep = userId.indexOf(':', HELD_PREFIX.length());
		return sep < 0 ? null : userId.substring(sep + 1);
	}

	static Reservation parse(String userId, String value) {
		int sep = value.indexOf(':');
		int resent = value.indexOf(':', sep + 1);
		int reservedEnd = resent < 0 ? value.length() : resent;
		return new Reservation(userId, Integer.parseInt(value.substring(0, sep)),
				Instant.ofEpochMilli(Long.parseLong(value.substring(sep + 1, reservedEnd))),
				resent < 0 ? null : Instant.ofEpochMilli(Long.parseLong(value.substring(resent + 1))));
	}

	/** The value as Redis holds it. */
	String encoded() {
		String value = slot + ":" + reservedAt.toEpochMilli();
		return resentAt == null ? value : value + ":" + resentAt.toEpochMilli();
	}
}
