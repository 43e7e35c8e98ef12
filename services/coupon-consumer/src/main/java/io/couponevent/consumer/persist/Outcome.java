package io.couponevent.consumer.persist;

import io.couponevent.common.IssuanceEvent;

/** What became of one event of a batch. */
public sealed interface Outcome {

	IssuanceEvent event();

	/** A new row was committed. */
	record Inserted(IssuanceEvent event) implements Outcome {
	}

	/**
	 * The same reservation (coupon, user, slot) was already persisted: redelivery,
	 * nothing written.
	 */
	record Duplicate(IssuanceEvent event) implements Outcome {
	}

	/** Can never be persisted: dead-letter it. */
	record Rejected(IssuanceEvent event, IssuanceRejectedException cause) implements Outcome {
	}

}
