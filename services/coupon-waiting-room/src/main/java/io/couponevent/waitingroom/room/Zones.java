package io.couponevent.waitingroom.room;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.couponevent.waitingroom.config.WaitingRoomProperties;

import org.springframework.stereotype.Component;

/**
 * Which zone a coupon queues in: a named zone that lists it, else its own zone
 * {@code coupon-<id>} with the defaults. Remembers the zones this instance served, for
 * the ticker and the sweeper.
 */
@Component
class Zones {

	private final WaitingRoomProperties properties;

	private final Map<Long, Zone> byCoupon = new HashMap<>();

	private final Map<String, Zone> named = new HashMap<>();

	private final Map<String, Zone> known = new ConcurrentHashMap<>();

	Zones(WaitingRoomProperties properties) {
		this.properties = properties;
		properties.zones().forEach((name, config) -> {
			Zone zone = new Zone(name, config.coupons(), config.settingsOver(properties.defaults()));
			this.named.put(name, zone);
			config.coupons().forEach((coupon) -> {
				if (this.byCoupon.put(coupon, zone) != null) {
					throw new IllegalArgumentException("coupon " + coupon + " is in two zones");
				}
			});
			this.known.put(name, zone);
		});
	}

	Zone forCoupon(long couponId) {
		Zone zone = this.byCoupon.get(couponId);
		if (zone == null) {
			String name = "coupon-" + couponId;
			zone = this.known.computeIfAbsent(name, (n) -> new Zone(n, List.of(couponId), this.properties.defaults()));
		}
		return zone;
	}

	Optional<Zone> byName(String name) {
		Zone zone = this.named.get(name);
		if (zone != null) {
			return Optional.of(zone);
		}
		if (name.startsWith("coupon-")) {
			try {
				long id = Long.parseLong(name.substring("coupon-".length()));
				if (id > 0 && !this.byCoupon.containsKey(id)) {
					return Optional.of(forCoupon(id));
				}
			}
			catch (NumberFormatException ex) {
				return Optional.empty();
			}
		}
		return Optional.empty();
	}

	Collection<Zone> known() {
		return this.known.values();
	}

}
