package io.couponevent.api.config;

import java.time.Duration;

import io.lettuce.core.ClientOptions.DisconnectedBehavior;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;

import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Lettuce follows Redis Cluster failovers and resharding.
 *
 * <p>
 * A failover is learnt from the adaptive triggers (a reconnect attempt to the dead node,
 * whose back-off doubles) or the periodic refresh: with 30 s the client kept sending a
 * slot's commands to the dead master for up to 15 s after the replica took over, so the
 * refresh runs every 5 s (one CLUSTER NODES per node, negligible). Commands for a
 * disconnected node are rejected at once instead of buffered: a buffered issue call would
 * run on reconnection, long after its caller was answered.
 *
 * <p>
 * The settings are added to Spring Boot's client options, which carry the TLS bundle
 * ({@code spring.data.redis.ssl.bundle}) and the connect timeout: options of our own in
 * their place dropped both (issue 37, item 14).
 */
@Configuration(proxyBeanMethods = false)
class RedisConfig {

	@Bean
	LettuceClientOptionsBuilderCustomizer clusterTopologyRefresh() {
		ClusterTopologyRefreshOptions refresh = ClusterTopologyRefreshOptions.builder()
			.enableAllAdaptiveRefreshTriggers()
			.adaptiveRefreshTriggersTimeout(Duration.ofSeconds(5))
			.enablePeriodicRefresh(Duration.ofSeconds(5))
			.build();
		return (options) -> {
			if (options instanceof ClusterClientOptions.Builder cluster) {
				cluster.topologyRefreshOptions(refresh).maxRedirects(5);
			}
			options.disconnectedBehavior(DisconnectedBehavior.REJECT_COMMANDS);
		};
	}

}
