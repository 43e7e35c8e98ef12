package io.couponevent.common.entry;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code coupon.entry.*}: the waiting room's entry tokens, shared by the waiting room
 * (which signs them) and the issuance API (which checks them while a coupon's gate is
 * on).
 *
 * @param secret HMAC-SHA256 key ({@code COUPON_ENTRY_SECRET}), at least 32 bytes; blank
 * means no waiting room is wired, so the API ignores gates and tokens
 * @param ttl how long an entry token admits its holder (default 2 minutes)
 */
@ConfigurationProperties("coupon.entry")
public record EntryProperties(String secret, Duration ttl) {

	public EntryProperties {
		if (secret != null && secret.isBlank()) {
			secret = null;
		}
		if (secret != null && secret.getBytes(StandardCharsets.UTF_8).length < 32) {
			throw new IllegalArgumentException("coupon.entry.secret must be at least 32 bytes");
		}
		if (ttl == null) {
			ttl = Duration.ofMinutes(2);
		}
		if (ttl.isNegative() || ttl.isZero()) {
			throw new IllegalArgumentException("coupon.entry.ttl must be positive");
		}
	}

	public boolean enabled() {
		return secret != null;
	}

}
