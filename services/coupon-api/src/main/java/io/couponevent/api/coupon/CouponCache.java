package io.couponevent.api.coupon;

import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.couponevent.common.redis.KeyPrefix;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;

/**
 * Coupon metadata kept in-process, so the hot path never reads MySQL. An admin change
 * bumps a version number in Redis; every instance polls it (cheap GET, once a second) and
 * reloads from MySQL when it moved.
 */
@Component
public class CouponCache {

	static final String VERSION_KEY = "coupon:catalog:version";

	private static final Logger log = LoggerFactory.getLogger(CouponCache.class);

	private final CouponRepository repository;

	private final StringRedisTemplate redis;

	private volatile Map<Long, Coupon> coupons = Map.of();

	private volatile String seenVersion;

	private volatile boolean loaded;

	/** Under the key prefix: two events sharing a Redis see each their own version. */
	private final String versionKey;

	public CouponCache(CouponRepository repository, StringRedisTemplate redis,
			@Value(KeyPrefix.PROPERTY) String keyPrefix) {
		this.repository = repository;
		this.redis = redis;
		this.versionKey = KeyPrefix.of(keyPrefix) + VERSION_KEY;
	}

	public Optional<Coupon> get(long id) {
		if (!loaded) {
			reload();
		}
		return Optional.ofNullable(coupons.get(id));
	}

	public Collection<Coupon> all() {
		if (!loaded) {
			reload();
		}
		return coupons.values();
	}

	/** After a local change: reload now and tell the other instances. */
	public void changed() {
		try {
			redis.opsForValue().increment(versionKey);
		}
		catch (RuntimeException e) {
			log.warn("could not bump the catalog version; other instances refresh on their next poll: {}",
					e.toString());
		}
		reload();
	}

	/** Called periodically. */
	public void refreshIfChanged() {
		String version;
		try {
			version = redis.opsForValue().get(versionKey);
		}
		catch (RuntimeException e) {
			version = null;
		}
		if (!loaded || version == null || !version.equals(seenVersion)) {
			seenVersion = version;
			reload();
		}
	}

	public synchronized void reload() {
		Map<Long, Coupon> fresh = new ConcurrentHashMap<>();
		repository.findAll().forEach(c -> fresh.put(c.id(), c));
		coupons = fresh;
		loaded = true;
	}

}
