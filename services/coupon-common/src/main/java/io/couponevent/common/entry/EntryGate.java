package io.couponevent.common.entry;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Base64;

import io.couponevent.common.security.HmacSha256;

/**
 * The contract between the waiting room and the issuance API.
 *
 * <p>
 * While a coupon's queue is active the waiting room keeps the key {@link #key(long)} in
 * the issuance Redis (a millisecond expiry time as its value, with the same TTL, renewed
 * while the queue lasts), in the coupon's hash slot so the issuance script reads it
 * atomically. While it exists, {@code POST …/issuances} needs the header {@link #HEADER}
 * with an entry token for that user and coupon. A crashed waiting room thus opens the
 * gate by itself within one TTL instead of locking everybody out.
 *
 * <p>
 * A token is
 * {@code v1.<couponId>.<expiresAtEpochSecond>.<base64url(userId)>.<base64url(HMAC-SHA256)>}:
 * compact, checked with one HMAC and no JSON, since the API checks it on its hot path.
 */
public final class EntryGate {

	/** The request header that carries the entry token. */
	public static final String HEADER = "Coupon-Entry-Token";

	private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

	private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

	private final HmacSha256 hmac;

	public EntryGate(String secret) {
		this.hmac = new HmacSha256(secret);
	}

	/** The gate key of a coupon, in the hash slot of its issuance keys. */
	public static String key(long couponId) {
		return key("", couponId);
	}

	/**
	 * The gate key of a coupon under a key prefix ({@code coupon.redis.key-prefix}, see
	 * {@link io.couponevent.common.redis.KeyPrefix}).
	 */
	public static String key(String prefix, long couponId) {
		return prefix + "{coupon:" + couponId + "}:gate";
	}

	/** A token admitting {@code userId} to {@code couponId} until {@code expiresAt}. */
	public String issue(String userId, long couponId, Instant expiresAt) {
		String body = "v1." + couponId + "." + expiresAt.getEpochSecond() + "."
				+ ENCODER.encodeToString(userId.getBytes(StandardCharsets.UTF_8));
		return body + "." + ENCODER.encodeToString(mac(body));
	}

	/**
	 * Whether {@code token} admits {@code userId} to {@code couponId} at {@code now}:
	 * false for a missing, malformed, forged or expired token and for another user or
	 * coupon.
	 */
	public boolean admits(String token, String userId, long couponId, Instant now) {
		if (token == null || token.length() > 512) {
			return false;
		}
		int sig = token.lastIndexOf('.');
		if (sig < 0) {
			return false;
		}
		String body = token.substring(0, sig);
		String[] parts = body.split("\\.", -1);
		if (parts.length != 4 || !"v1".equals(parts[0])) {
			return false;
		}
		byte[] expected = mac(body);
		byte[] given;
		try {
			given = DECODER.decode(token.substring(sig + 1));
			if (!MessageDigest.isEqual(expected, given)) {
				return false;
			}
			return parts[1].equals(Long.toString(couponId)) && Long.parseLong(parts[2]) > now.getEpochSecond()
					&& userId.equals(new String(DECODER.decode(parts[3]), StandardCharsets.UTF_8));
		}
		catch (IllegalArgumentException ex) {
			return false;
		}
	}

	private byte[] mac(String body) {
		return this.hmac.sign(body);
	}

}
