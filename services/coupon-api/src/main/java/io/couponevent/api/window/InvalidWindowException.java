package io.couponevent.api.window;

/** A declared window that cannot be stored: it closes before it opens, or too far out. */
public class InvalidWindowException extends RuntimeException {

	public InvalidWindowException(String message) {
		super(message);
	}

}
