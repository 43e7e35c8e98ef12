package io.couponevent.api.issuance;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Component;

/**
 * Coupons whose Redis state the hot path found missing; the reconciler picks them up
 * first.
 */
@Component
public class RebuildRequests {

	private final Set<Long> pending = ConcurrentHashMap.newKeySet();

	public void request(long couponId) {
		pending.add(couponId);
	}

	public boolean any() {
		return !pending.isEmpty();
	}

	public void clear(long couponId) {
		pending.remove(couponId);
	}

}
