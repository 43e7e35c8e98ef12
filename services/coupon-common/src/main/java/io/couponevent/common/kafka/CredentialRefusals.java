package io.couponevent.common.kafka;

import java.time.Duration;

/**
 * Whether Kafka has refused this process's credentials for so long that only a restart
 * can help. A pod reads its SCRAM password from a Secret once, at start: when the
 * operator that owns the Secret writes a new password (Strimzi's User Operator after a
 * rotation, or two of its reconciliations racing at a user's creation), the process keeps
 * the old one and is refused forever. A new credential can take seconds to reach every
 * broker, so a refusal alone is no reason to restart; no successful check for
 * {@code bound} with a refusal since the last one is.
 *
 * <p>
 * Pure: the caller passes the time (nanoseconds of a monotonic clock).
 */
final class CredentialRefusals {

	private final long boundNanos;

	private long lastAnswered;

	private boolean refusedSince;

	CredentialRefusals(Duration bound, long now) {
		this.boundNanos = bound.toNanos();
		this.lastAnswered = now;
	}

	/** The cluster answered: the credentials work. */
	synchronized void answered(long now) {
		this.lastAnswered = now;
		this.refusedSince = false;
	}

	/** The cluster refused the credentials (an authentication error). */
	synchronized void refused() {
		this.refusedSince = true;
	}

	/**
	 * True when the credentials were refused and nothing answered for the bound (checks
	 * that failed otherwise, by a timeout, count as unanswered).
	 */
	synchronized boolean hopeless(long now) {
		return this.refusedSince && now - this.lastAnswered >= this.boundNanos;
	}

}
