package io.couponevent.consumer.replay;

/** A second replay request while one is running in the same pod. */
public class ReplayInProgressException extends RuntimeException {

	public ReplayInProgressException() {
		super("a dead-letter replay is already running");
	}

}
