package io.couponevent.common.security;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 with one key, for the hot paths that sign or check a token per request.
 * <p>
 * Why: {@link Mac#getInstance} searches the JCA providers on every call, a visible share
 * of a request's CPU. Initialised {@code Mac}s are kept in a pool instead of a
 * thread-local, because requests run on virtual threads, which are never reused.
 */
public final class HmacSha256 {

	private final SecretKeySpec key;

	private final Queue<Mac> macs = new ConcurrentLinkedQueue<>();

	public HmacSha256(String secret) {
		this.key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
	}

	/** The key, for a library that needs it (the JWT decoder). */
	public SecretKeySpec key() {
		return this.key;
	}

	/** The MAC of {@code text}'s UTF-8 bytes. */
	public byte[] sign(String text) {
		Mac mac = this.macs.poll();
		if (mac == null) {
			mac = newMac();
		}
		try {
			return mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
		}
		finally {
			this.macs.offer(mac);
		}
	}

	private Mac newMac() {
		try {
			Mac mac = Mac.getInstance("HmacSHA256");
			mac.init(this.key);
			return mac;
		}
		catch (NoSuchAlgorithmException | InvalidKeyException ex) {
			throw new IllegalStateException("HmacSHA256 is unavailable", ex);
		}
	}

}
