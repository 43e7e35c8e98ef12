package io.couponevent.consumer.persist;

/**
 * A record that can never be persisted as it is; it goes to the dead-letter topic, never
 * retried.
 */
public class IssuanceRejectedException extends RuntimeException {

	private final DeadLetterReason reason;

	public IssuanceRejectedException(DeadLetterReason reason, String message) {
		super(message);
		this.reason = reason;
	}

	public DeadLetterReason reason() {
		return reason;
	}

}
