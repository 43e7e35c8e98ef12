package io.couponevent.waitingroom.room;

import java.util.List;

import io.couponevent.waitingroom.config.WaitingRoomProperties.ZoneSettings;

/**
 * A queue shared by some coupons, and the keys of its state: all in one hash slot
 * ({@code {wr:<name>}}), so that one script sees and changes all of it.
 *
 * @param name the zone's name
 * @param coupons its coupons (a default zone has one)
 * @param settings its configured settings (the admin API's overrides live in Redis)
 */
record Zone(String name, List<Long> coupons, ZoneSettings settings) {

	private String key(String suffix) {
		return "wr:{" + this.name + "}:" + suffix;
	}

	/** Waiting users, scored by first arrival (ms). */
	String queue() {
		return key("q");
	}

	/** Admitted users, scored by admission time (ms). */
	String admitted() {
		return key("adm");
	}

	/** Every user with a place, scored by their last call (ms): the sweeper's index. */
	String seen() {
		return key("seen");
	}

	/** Budget, mode, pause, pre-queue and the admission window's counters. */
	String meta() {
		return key("meta");
	}

	String soldOut() {
		return key("soldout");
	}

	String closed() {
		return key("closed");
	}

	/** Each queued user's predicted admission time, to measure the ETA's error. */
	String eta() {
		return key("eta");
	}

	List<String> scriptKeys() {
		return List.of(queue(), admitted(), seen(), meta(), soldOut(), closed(), eta());
	}

}
