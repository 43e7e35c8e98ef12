package io.couponevent.waitingroom.config;

import io.couponevent.common.entry.EntryGate;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The API's Redis, where the waiting room writes the gate keys and nothing else.
 *
 * @param template its client
 * @param ownFactory the connection factory to close, when it is not the queue's
 * @param keyPrefix the API's key prefix ({@code coupon.redis.key-prefix}), before the
 * gate keys
 */
public record IssuanceRedis(StringRedisTemplate template, LettuceConnectionFactory ownFactory, String keyPrefix) {

	/** The gate key of a coupon, as the API reads it. */
	public String gateKey(long couponId) {
		return EntryGate.key(this.keyPrefix, couponId);
	}

	public void destroy() {
		if (this.ownFactory != null) {
			this.ownFactory.destroy();
		}
	}

}
