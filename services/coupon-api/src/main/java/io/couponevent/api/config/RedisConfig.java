package io.couponevent.api.config;

import java.time.Duration;

import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;

import org.springframework.boot.data.redis.autoconfigure.LettuceClientConfigurationBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Lettuce follows Redis Cluster failovers and resharding (adaptive plus periodic topology
 * refresh).
 */
@Configuration(proxyBeanMethods = false)
class RedisConfig {

	@Bean
	LettuceClientConfigurationBuilderCustomizer clusterTopologyRefresh() {
		ClusterTopologyRefreshOptions refresh = ClusterTopologyRefreshOptions.builder()
			.enableAllAdaptiveRefreshTriggers()
			.adaptiveRefreshTriggersTimeout(Duration.ofSeconds(5))
			.enablePeriodicRefresh(Duration.ofSeconds(30))
			.build();
		return builder -> builder
			.clientOptions(ClusterClientOptions.builder().topologyRefreshOptions(refresh).maxRedirects(5).build());
	}

}
