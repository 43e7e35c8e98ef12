package io.couponevent.waitingroom.room;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

import io.couponevent.waitingroom.config.WaitingRoomProperties;

import org.springframework.stereotype.Component;

/**
 * Which zone a coupon queues in: a named zone that lists it, else its own zone
 * {@code coupon-<id>} with the defaults. Remembers the zones this instance served, for
 * the ticker and the sweeper: a coupon's own zone is made only for a coupon the API knows
 * ({@link WaitingRoom#zoneOf}).
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

	/** A zone the configuration names. */
	Optional<Zone> named(String name) {
		return Optional.ofNullable(this.named.get(name));
	}

	/**
	 * The coupon whose own zone {@code name} is ({@code coupon-<id>}, for a coupon no
	 * named zone lists), if it is one.
	 */
	OptionalLong ownZoneCoupon(String name) {
		if (name.startsWith("coupon-")) {
			try {
				long id = Long.parseLong(name.substring("coupon-".length()));
				if (id > 0 && !this.byCoupon.containsKey(id)) {
					return OptionalLong.of(id);
				}
			}
			catch (NumberFormatException ex) {
				return OptionalLong.empty();
			}
		}
		return OptionalLong.empty();
	}

	Collection<Zone> known() {
		return this.known.values();
	}

}
