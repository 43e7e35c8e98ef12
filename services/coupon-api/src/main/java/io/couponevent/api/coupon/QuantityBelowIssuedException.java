package io.couponevent.api.coupon;

/** A quantity change would drop slots that are already handed out. */
public class QuantityBelowIssuedException extends RuntimeException {

	public QuantityBelowIssuedException(long highestSlotInUse) {
		super("quantity cannot go below slot " + highestSlotInUse + ", which is already handed out");
	}

}
