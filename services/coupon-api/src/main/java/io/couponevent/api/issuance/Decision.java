package io.couponevent.api.issuance;

import java.time.Instant;

/** What the issue script decided. */
public record Decision(Outcome outcome, int slot, long remaining, Instant reservedAt) {

	/**
	 * {@code STOCK_HELD}: nothing free, but held slots may still come back (retry, not
	 * sold out). {@code EXPIRED}: the call reached Redis after its deadline, nothing
	 * reserved. {@code ENTRY_REQUIRED}: the waiting room's gate is on and the request has
	 * no valid entry token. {@code UNREPLICATED}: no replica confirmed the reservation
	 * before the deadline; it was given back, nothing reserved.
	 */
	public enum Outcome {

		ACCEPTED, STATE_MISSING, NOT_OPEN, CLOSED, PAUSED, DUPLICATE, SOLD_OUT, STOCK_HELD, EXPIRED, ENTRY_REQUIRED,
		UNREPLICATED

	}

	/** This accepted reservation, given back because no replica confirmed it. */
	Decision unreplicated() {
		return new Decision(Outcome.UNREPLICATED, this.slot, this.remaining, this.reservedAt);
	}

	static Decision of(java.util.List<Long> reply) {
		Outcome outcome = switch (reply.get(0).intValue()) {
			case 1 -> Outcome.ACCEPTED;
			case -1 -> Outcome.STATE_MISSING;
			case -2 -> Outcome.NOT_OPEN;
			case -3 -> Outcome.CLOSED;
			case -4 -> Outcome.PAUSED;
			case -5 -> Outcome.DUPLICATE;
			case -6 -> Outcome.SOLD_OUT;
			case -7 -> Outcome.STOCK_HELD;
			case -8 -> Outcome.EXPIRED;
			case -9 -> Outcome.ENTRY_REQUIRED;
			default -> throw new IllegalStateException("unexpected script reply " + reply);
		};
		return new Decision(outcome, reply.get(1).intValue(), reply.get(2), Instant.ofEpochMilli(reply.get(3)));
	}
}
