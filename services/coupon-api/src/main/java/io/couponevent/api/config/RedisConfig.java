package io.couponevent.api.config;

import java.time.Duration;

import io.lettuce.core.ClientOptions.DisconnectedBehavior;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;

import org.springframework.boot.data.redis.autoconfigure.LettuceClientConfigurationBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Lettuce follows Redis Cluster failovers and resharding.
 *
 * <p>
 * A failover is learnt from the adaptive triggers (a reconnect attempt to the dead node,
 * whose back-off doubles) or the periodic refresh: with 30 s the client kept sending a
 * slot's commands to the dead master for up to 15 s after the replica took over. The
 * refresh runs every second and an adaptive trigger may refresh again after a second, so
 * a new master is used within about a second of the failover, which is itself bounded by
 * the servers' {@code cluster-node-timeout} (one CLUSTER NODES per node and second,
 * negligible). Commands for a disconnected node are rejected at once instead of buffered:
 * a buffered issue call would run on reconnection, long after its caller was answered.
 */
@Configuration(proxyBeanMethods = false)
class RedisConfig {

	@Bean
	LettuceClientConfigurationBuilderCustomizer clusterTopologyRefresh() {
		ClusterTopologyRefreshOptions refresh = ClusterTopologyRefreshOptions.builder()
			.enableAllAdaptiveRefreshTriggers()
			.adaptiveRefreshTriggersTimeout(Duration.ofSeconds(1))
			.enablePeriodicRefresh(Duration.ofSeconds(1))
			.build();
		return builder -> builder.clientOptions(ClusterClientOptions.builder()
			.topologyRefreshOptions(refresh)
			.maxRedirects(5)
			.disconnectedBehavior(DisconnectedBehavior.REJECT_COMMANDS)
			.build());
	}

}
