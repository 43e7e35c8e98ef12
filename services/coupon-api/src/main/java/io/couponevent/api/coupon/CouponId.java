package io.couponevent.api.coupon;

import java.util.regex.Pattern;

/**
 * Parses the {@code couponId} path segment: a positive 64-bit integer, anything else is
 * an {@link InvalidCouponIdException}.
 */
public final class CouponId {

	private static final Pattern FORMAT = Pattern.compile("[1-9][0-9]{0,18}");

	private CouponId() {
	}

	public static long parse(String raw) {
		if (raw == null || !FORMAT.matcher(raw).matches()) {
			throw new InvalidCouponIdException("couponId must be a positive integer, got '" + abbreviate(raw) + "'");
		}
		try {
			return Long.parseLong(raw);
		}
		catch (NumberFormatException e) {
			throw new InvalidCouponIdException("couponId is out of range");
		}
	}

	private static String abbreviate(String raw) {
		if (raw == null) {
			return "";
		}
		String printable = raw.replaceAll("[^\\x20-\\x7e]", "?");
		return printable.length() > 40 ? printable.substring(0, 40) + "…" : printable;
	}

}
