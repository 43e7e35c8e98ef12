package io.couponevent.api.reconcile;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.couponevent.common.redis.KeyPrefix;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

/** A lease in Redis (SET NX PX) so that one instance at a time reconciles. */
@Component
class RedisLock {

	private static final String KEY = "coupon:reconciler:lock";

	/** One lease per event: two events sharing a Redis reconcile each their own. */
	private final String key;

	private static final RedisScript<Long> UNLOCK = RedisScript.of(
			"if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end",
			Long.class);

	private final StringRedisTemplate redis;

	private final String owner = UUID.randomUUID().toString();

	RedisLock(StringRedisTemplate redis, @Value(KeyPrefix.PROPERTY) String keyPrefix) {
		this.redis = redis;
		this.key = KeyPrefix.of(keyPrefix) + KEY;
	}

	boolean tryAcquire(Duration ttl) {
		return Boolean.TRUE.equals(redis.opsForValue().setIfAbsent(key, owner, ttl));
	}

	void release() {
		redis.execute(UNLOCK, List.of(key), owner);
	}

}
