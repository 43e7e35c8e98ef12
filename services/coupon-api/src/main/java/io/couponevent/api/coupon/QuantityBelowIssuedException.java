package io.couponevent.api.coupon;

/** A quantity change would drop slots that are already handed out. */
public class QuantityBelowIssuedException extends RuntimeException {

	public QuantityBelowIssuedException(long highestSlotInUse) {
		super("quantity cannot go below slot " + highestSlotInUse + ", which is already handed out");
	}

	/**
	 * Redis has handed out slot numbers up to {@code minted}, some of which may not be in
	 * MySQL yet.
	 */
	public QuantityBelowIssuedException(int quantity, long minted) {
		super("quantity " + quantity + " is below the " + minted
				+ " slot numbers already handed out; nothing was changed");
	}

}
