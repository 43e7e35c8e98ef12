package io.couponevent.consumer.deadletter;

import io.couponevent.consumer.persist.DeadLetterReason;
import io.couponevent.consumer.persist.IssuanceRejectedException;

import org.springframework.kafka.support.serializer.DeserializationException;

/**
 * Maps the exception a record failed with onto the low-cardinality reason of its dead
 * letter.
 */
public final class DeadLetterReasons {

	private DeadLetterReasons() {
	}

	public static DeadLetterReason of(Throwable failure) {
		for (Throwable t = failure; t != null; t = t.getCause()) {
			if (t instanceof IssuanceRejectedException rejected) {
				return rejected.reason();
			}
			if (t instanceof DeserializationException) {
				return DeadLetterReason.POISON;
			}
			if (t.getCause() == t) {
				break;
			}
		}
		return DeadLetterReason.OTHER;
	}

}
