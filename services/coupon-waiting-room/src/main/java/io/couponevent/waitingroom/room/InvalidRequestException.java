package io.couponevent.waitingroom.room;

/** Bad input in a path or body. */
public class InvalidRequestException extends RuntimeException {

	InvalidRequestException(String message) {
		super(message);
	}

}
