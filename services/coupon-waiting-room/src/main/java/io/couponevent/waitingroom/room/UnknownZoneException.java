package io.couponevent.waitingroom.room;

/** An admin call for a zone that does not exist. */
public class UnknownZoneException extends RuntimeException {

	UnknownZoneException(String zone) {
		super("no zone " + zone);
	}

}
