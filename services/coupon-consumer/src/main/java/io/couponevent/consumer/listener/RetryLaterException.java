package io.couponevent.consumer.listener;

/**
 * A batch that failed for a passing reason: the error handler retries it with back-off.
 */
public class RetryLaterException extends RuntimeException {

	public RetryLaterException(String message, Throwable cause) {
		super(message, cause);
	}

}
