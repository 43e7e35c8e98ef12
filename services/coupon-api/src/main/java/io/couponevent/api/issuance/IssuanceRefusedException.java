package io.couponevent.api.issuance;

/**
 * The issue script said no: a final answer for this request, nothing was reserved or
 * sent.
 */
public class IssuanceRefusedException extends RuntimeException {

	/** Why; each is a stable {@code code} of the HTTP contract. */
	public enum Refusal {

		NOT_OPEN_YET("the coupon event has not opened yet"),

		CLOSED("the coupon event is closed"),

		PAUSED("the coupon event is paused"),

		ALREADY_ISSUED("this user already holds this coupon"),

		SOLD_OUT("the coupon is sold out"),

		ENTRY_REQUIRED("a waiting room is admitting users to this coupon: join it and retry with its entry token");

		private final String detail;

		Refusal(String detail) {
			this.detail = detail;
		}

	}

	private final Refusal refusal;

	public IssuanceRefusedException(Refusal refusal) {
		super(refusal.detail);
		this.refusal = refusal;
	}

	public Refusal refusal() {
		return this.refusal;
	}

}
