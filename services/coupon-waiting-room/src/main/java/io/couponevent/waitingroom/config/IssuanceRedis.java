package io.couponevent.waitingroom.config;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The API's Redis, where the waiting room writes the gate keys and nothing else.
 *
 * @param template its client
 * @param ownFactory the connection factory to close, when it is not the queue's
 */
public record IssuanceRedis(StringRedisTemplate template, LettuceConnectionFactory ownFactory) {

	public void destroy() {
		if (this.ownFactory != null) {
			this.ownFactory.destroy();
		}
	}

}
