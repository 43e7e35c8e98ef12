package io.couponevent.api.issuance;

import java.util.List;

import io.couponevent.common.entry.EntryGate;

/**
 * Redis keys of one coupon. The hash tag {@code {coupon:<id>}} puts them all in one
 * cluster slot, so a single Lua script can read and write them atomically; the key prefix
 * ({@code coupon.redis.key-prefix}) stays in front of it.
 */
record CouponKeys(String prefix, long couponId) {

	/** Without a prefix. */
	CouponKeys(long couponId) {
		this("", couponId);
	}

	String meta() {
		return tag() + ":meta";
	}

	String issued() {
		return tag() + ":issued";
	}

	String next() {
		return tag() + ":next";
	}

	String free() {
		return tag() + ":free";
	}

	/** The token of a rebuild under way (see {@code scripts/restore-begin.lua}). */
	String rebuild() {
		return tag() + ":rebuild";
	}

	List<String> all() {
		return List.of(meta(), issued(), next(), free());
	}

	/** Every key of the coupon's state, the rebuild's token included. */
	List<String> state() {
		return List.of(meta(), issued(), next(), free(), rebuild());
	}

	/** The issue script's keys: the state plus the waiting room's gate. */
	List<String> issue() {
		return List.of(meta(), issued(), next(), free(), EntryGate.key(prefix, couponId));
	}

	private String tag() {
		return prefix + "{coupon:" + couponId + "}";
	}
}
