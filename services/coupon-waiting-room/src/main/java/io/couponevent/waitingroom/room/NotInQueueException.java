package io.couponevent.waitingroom.room;

/** A poll from a user who has no place (never joined, purged, or admission over). */
public class NotInQueueException extends RuntimeException {

	NotInQueueException(long couponId) {
		super("no place in the waiting room of coupon " + couponId + ": join first");
	}

}
