package io.couponevent.waitingroom.config;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * {@code coupon.waiting-room.*}.
 *
 * @param issuanceRedis the API's Redis Cluster, where the gate keys live (default: the
 * queue's own Redis)
 * @param apiUrl base URL of coupon-api, for the coupon's state (sold out, opening)
 * @param defaults the settings of every zone unless the zone says otherwise
 * @param sweepEvery how often leavers are purged
 * @param zones named zones: several coupons sharing one queue; a coupon not listed is its
 * own zone {@code coupon-<id>}
 * @param connectionBuffer the read and the write buffer Tomcat keeps for each open
 * connection (default 2KB): every waiting user holds one between polls
 */
@ConfigurationProperties("coupon.waiting-room")
public record WaitingRoomProperties(IssuanceRedis issuanceRedis, URI apiUrl, ZoneSettings defaults, Duration sweepEvery,
		Map<String, ZoneConfig> zones, DataSize connectionBuffer) {

	/** Zone names are part of Redis keys and URLs. */
	public static final Pattern ZONE_NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");

	public WaitingRoomProperties {
		if (issuanceRedis == null) {
			issuanceRedis = new IssuanceRedis(List.of(), null, null);
		}
		if (apiUrl == null) {
			throw new IllegalArgumentException("coupon.waiting-room.api-url is required");
		}
		defaults = ZoneSettings.DEFAULTS.with(defaults);
		if (sweepEvery == null) {
			sweepEvery = Duration.ofSeconds(30);
		}
		if (sweepEvery.toMillis() < 100) {
			throw new IllegalArgumentException("coupon.waiting-room.sweep-every must be at least 100ms");
		}
		if (connectionBuffer == null) {
			connectionBuffer = DataSize.ofKilobytes(2);
		}
		if (connectionBuffer.toBytes() < 512 || connectionBuffer.toBytes() > 65_536) {
			throw new IllegalArgumentException("coupon.waiting-room.connection-buffer must be 512B..64KB");
		}
		zones = zones == null ? Map.of() : Map.copyOf(zones);
		zones.forEach((name, zone) -> {
			if (!ZONE_NAME.matcher(name).matches() || name.startsWith("coupon-")) {
				throw new IllegalArgumentException("coupon.waiting-room.zones." + name
						+ ": a zone name is 1-64 of [a-z0-9-] and does not start with coupon-");
			}
			if (zone.coupons().isEmpty()) {
				throw new IllegalArgumentException("coupon.waiting-room.zones." + name + ".coupons is empty");
			}
		});
	}

	/**
	 * @param nodes host:port of the API's Redis Cluster; empty: the queue's Redis
	 * @param password its password ({@code COUPON_WAITINGROOM_ISSUANCEREDIS_PASSWORD}),
	 * if any
	 * @param ssl TLS to it: {@code enabled}, and the name of a Spring SSL {@code bundle}
	 * that trusts its certificate (none: the JVM's trust store)
	 */
	public record IssuanceRedis(List<String> nodes, String password, Ssl ssl) {

		public IssuanceRedis {
			nodes = nodes == null ? List.of() : nodes.stream().filter((n) -> !n.isBlank()).toList();
			password = (password == null || password.isEmpty()) ? null : password;
			ssl = ssl == null ? new Ssl(false, null) : ssl;
		}

	}

	/**
	 * @param enabled whether to connect with TLS
	 * @param bundle a Spring SSL bundle ({@code spring.ssl.bundle.*}); blank: the JVM's
	 * trust store
	 */
	public record Ssl(boolean enabled, String bundle) {

		public Ssl {
			bundle = (bundle == null || bundle.isBlank()) ? null : bundle;
		}

	}

	/**
	 * A named zone: its coupons and any settings of its own (null: the defaults).
	 */
	public record ZoneConfig(List<Long> coupons, Integer budgetPerMinute, Duration subWindow, Mode mode,
			PreQueue preQueue, Duration purgeAfter) {

		public ZoneConfig {
			coupons = coupons == null ? List.of() : List.copyOf(coupons);
		}

		public ZoneSettings settingsOver(ZoneSettings defaults) {
			return defaults.with(new ZoneSettings(budgetPerMinute, subWindow, mode, preQueue, purgeAfter));
		}

	}

	/**
	 * A zone's settings.
	 *
	 * @param budgetPerMinute users let in per minute once a queue exists
	 * @param subWindow the admission step: budget × sub-window / 1 min users per step
	 * @param mode auto: a queue only when arrivals exceed the budget; on: always; off:
	 * never
	 * @param preQueue how users who queued before the opening are ordered at the opening
	 * @param purgeAfter a user silent this long loses their place
	 */
	public record ZoneSettings(Integer budgetPerMinute, Duration subWindow, Mode mode, PreQueue preQueue,
			Duration purgeAfter) {

		static final ZoneSettings DEFAULTS = new ZoneSettings(3000, Duration.ofSeconds(6), Mode.AUTO, PreQueue.SHUFFLE,
				Duration.ofSeconds(60));

		public ZoneSettings {
			if (budgetPerMinute != null && (budgetPerMinute < 1 || budgetPerMinute > 1_000_000)) {
				throw new IllegalArgumentException("budget-per-minute must be 1..1000000");
			}
			if (subWindow != null && (subWindow.toMillis() < 100 || subWindow.toMillis() > 60_000)) {
				throw new IllegalArgumentException("sub-window must be 100ms..60s");
			}
			if (purgeAfter != null && purgeAfter.toMillis() < 1000) {
				throw new IllegalArgumentException("purge-after must be at least 1s");
			}
		}

		/** These settings, with {@code other}'s non-null values on top. */
		public ZoneSettings with(ZoneSettings other) {
			if (other == null) {
				return this;
			}
			return new ZoneSettings(pick(other.budgetPerMinute, this.budgetPerMinute),
					pick(other.subWindow, this.subWindow), pick(other.mode, this.mode),
					pick(other.preQueue, this.preQueue), pick(other.purgeAfter, this.purgeAfter));
		}

		private static <T> T pick(T over, T under) {
			return over != null ? over : under;
		}

	}

}
