package io.couponevent.api.reconcile;

import java.time.Duration;

import io.couponevent.api.config.ReconcilerProperties;
import io.couponevent.api.config.ServingInstance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Runs the {@link Reconciler} every {@code coupon.reconciler.interval} in a serving
 * instance.
 */
@Component
@ServingInstance
class ReconcileSchedule {

	private static final Logger log = LoggerFactory.getLogger(ReconcileSchedule.class);

	/** A coupon whose Redis state went missing is looked at at least this often. */
	private static final Duration REBUILD_INTERVAL = Duration.ofSeconds(1);

	private final Reconciler reconciler;

	private final boolean enabled;

	private final Duration interval;

	private long lastRun = System.nanoTime();

	ReconcileSchedule(Reconciler reconciler, ReconcilerProperties properties) {
		this.reconciler = reconciler;
		this.enabled = properties.enabled();
		this.interval = properties.interval();
	}

	/** Ticks every 250 ms; runs the reconciler when its interval has passed. */
	@Scheduled(fixedDelay = 250, initialDelay = 2000)
	void tick() {
		if (!this.enabled) {
			return;
		}
		long now = System.nanoTime();
		long every = this.reconciler.rebuildRequested() ? Math.min(this.interval.toNanos(), REBUILD_INTERVAL.toNanos())
				: this.interval.toNanos();
		if (now - this.lastRun < every) {
			return;
		}
		this.lastRun = now;
		try {
			this.reconciler.runOnce();
		}
		catch (RuntimeException ex) {
			log.warn("reconciler run failed: {}", ex.toString());
		}
	}

}
