package io.couponevent.api.config;

import java.time.Duration;

import jakarta.validation.constraints.NotNull;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The reconciler that keeps Redis in line with MySQL.
 *
 * @param interval pause between two runs
 * @param staleAfter a reservation last sent this long before a moment up to which the
 * consumer has processed every record (an offset barrier), and absent from MySQL, belongs
 * to a process that died between reserve and send: it is released
 * @param lockTtl how long one instance holds the Redis lock
 * @param commitLag how long after its append a record can still commit: the brokers'
 * {@code replica.lag.time.max.ms} (Kafka's own 30 s), behind a slow follower that stays
 * in the ISR; {@code staleAfter} must cover it after the producer's delivery timeout
 */
@Validated
@ConfigurationProperties("coupon.reconciler")
public record ReconcilerProperties(@DefaultValue("true") boolean enabled,
		@NotNull @DefaultValue("2s") Duration interval, @NotNull @DefaultValue("36s") Duration staleAfter,
		@NotNull @DefaultValue("30s") Duration lockTtl, @NotNull @DefaultValue("30s") Duration commitLag) {
}
