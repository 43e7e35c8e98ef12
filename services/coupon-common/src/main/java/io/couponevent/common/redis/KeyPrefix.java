package io.couponevent.common.redis;

/**
 * {@code coupon.redis.key-prefix}: put before every Redis key of the issuance (the
 * coupons' state, the waiting room's gates, the reconciler's lease, the catalog version),
 * so two events sharing one Redis never share a coupon's stock. Empty by default (the
 * keys as they always were). The prefix stays outside the hash tag {@code {coupon:<id>}},
 * so a coupon's keys still share one cluster slot: it may not contain braces.
 */
public final class KeyPrefix {

	/** The property, for {@code @Value}; empty when unset. */
	public static final String PROPERTY = "${coupon.redis.key-prefix:}";

	private KeyPrefix() {
	}

	/** The prefix, checked: null is empty; braces (a hash tag) or spaces are refused. */
	public static String of(String prefix) {
		if (prefix == null) {
			return "";
		}
		if (!prefix.matches("[^{}\\s]*") || prefix.length() > 64) {
			throw new IllegalArgumentException(
					"coupon.redis.key-prefix must be at most 64 characters without braces or spaces: '" + prefix + "'");
		}
		return prefix;
	}

}
