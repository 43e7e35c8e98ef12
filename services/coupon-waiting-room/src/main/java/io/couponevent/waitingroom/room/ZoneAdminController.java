package io.couponevent.waitingroom.room;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.couponevent.waitingroom.config.Mode;
import io.couponevent.waitingroom.config.PreQueue;
import io.couponevent.waitingroom.config.WaitingRoomProperties.ZoneSettings;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The operator's controls of a zone. Kept in the zone's Redis hash, so every instance
 * applies them at its next script call.
 */
@RestController
class ZoneAdminController {

	private final Zones zones;

	private final RoomStore store;

	private final WaitingRoom room;

	ZoneAdminController(Zones zones, RoomStore store, WaitingRoom room) {
		this.zones = zones;
		this.store = store;
		this.room = room;
	}

	@GetMapping("/api/v1/admin/waiting-room/zones/{zone}")
	ZoneView get(@PathVariable("zone") String name) {
		Zone zone = zone(name);
		return view(zone, this.store.meta(zone));
	}

	@PutMapping("/api/v1/admin/waiting-room/zones/{zone}")
	ZoneView put(@PathVariable("zone") String name, @RequestBody ZoneControls controls) {
		Zone zone = zone(name);
		if (controls == null) {
			throw new InvalidRequestException("the body must be a JSON object");
		}
		Map<String, String> fields = new HashMap<>();
		if (controls.budgetPerMinute() != null) {
			if (controls.budgetPerMinute() < 1 || controls.budgetPerMinute() > 1_000_000) {
				throw new InvalidRequestException("budgetPerMinute must be 1..1000000");
			}
			fields.put("budget", Integer.toString(controls.budgetPerMinute()));
		}
		if (controls.mode() != null) {
			fields.put("mode", parse(controls.mode(), "mode", Mode::of).wire());
		}
		if (controls.preQueue() != null) {
			fields.put("preQueue", parse(controls.preQueue(), "preQueue", PreQueue::of).wire());
		}
		if (controls.paused() != null) {
			fields.put("paused", controls.paused() ? "1" : "0");
		}
		if (!fields.isEmpty()) {
			this.store.setMeta(zone, fields);
		}
		return view(zone, this.store.meta(zone));
	}

	/** A named zone, or the own zone of a coupon the API knows. */
	private Zone zone(String name) {
		Optional<Zone> named = this.zones.named(name);
		if (named.isPresent()) {
			return named.get();
		}
		long coupon = this.zones.ownZoneCoupon(name).orElseThrow(() -> new UnknownZoneException(name));
		try {
			return this.room.zoneOf(coupon);
		}
		catch (CouponNotFoundException ex) {
			throw new UnknownZoneException(name);
		}
	}

	private static <T> T parse(String value, String field, java.util.function.Function<String, T> parser) {
		try {
			return parser.apply(value);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRequestException(field + " has no value " + value);
		}
	}

	private static ZoneView view(Zone zone, Map<Object, Object> meta) {
		ZoneSettings s = zone.settings();
		Object budget = meta.get("budget");
		Object mode = meta.get("mode");
		Object preQueue = meta.get("preQueue");
		return new ZoneView(zone.name(), zone.coupons(),
				budget != null ? Integer.parseInt(budget.toString()) : s.budgetPerMinute(),
				mode != null ? mode.toString() : s.mode().wire(), "1".equals(meta.get("paused")),
				preQueue != null ? preQueue.toString() : s.preQueue().wire(), s.subWindow().toMillis(),
				s.purgeAfter().toSeconds(), "1".equals(meta.get("active")), "1".equals(meta.get("prequeue")));
	}

	/** A change of controls; null fields stay as they are. */
	record ZoneControls(Integer budgetPerMinute, String mode, Boolean paused, String preQueue) {

	}

	/** A zone's effective controls and state. */
	record ZoneView(String zone, List<Long> coupons, int budgetPerMinute, String mode, boolean paused, String preQueue,
			long subWindowMs, long purgeAfterSeconds, boolean active, boolean preQueueOpen) {

	}

}
