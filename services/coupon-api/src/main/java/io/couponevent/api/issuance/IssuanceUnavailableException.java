package io.couponevent.api.issuance;

/**
 * The request could not be worked on now (Redis or Kafka unreachable, state being
 * rebuilt, the last units held): the client may retry. Any reservation it made has been
 * compensated or is left to the reconciler.
 */
public class IssuanceUnavailableException extends RuntimeException {

	public IssuanceUnavailableException(String message) {
		super(message);
	}

}
