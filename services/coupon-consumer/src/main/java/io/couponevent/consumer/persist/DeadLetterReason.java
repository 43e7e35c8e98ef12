package io.couponevent.consumer.persist;

/**
 * Why a record went to the dead-letter topic: the {@code reason} tag of
 * {@code coupon.dlq.records}.
 */
public enum DeadLetterReason {

	/** The value was not a readable {@code IssuanceEvent}. */
	POISON,
	/**
	 * The slot is held by another user, the user holds another slot, or the slot is
	 * beyond the quantity.
	 */
	SLOT_CONFLICT,
	/** No such coupon in MySQL (yet): replay after the coupon is created. */
	UNKNOWN_COUPON,
	/** Anything else that retrying cannot fix. */
	OTHER;

	public String tag() {
		return name().toLowerCase(java.util.Locale.ROOT);
	}

}
