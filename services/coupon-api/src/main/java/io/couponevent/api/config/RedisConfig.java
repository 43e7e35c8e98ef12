package io.couponevent.api.config;

import io.couponevent.common.redis.ClusterFailover;

import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Lettuce follows Redis Cluster failovers and resharding ({@link ClusterFailover}: the
 * topology refresh, and commands for a disconnected node rejected at once).
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
		return ClusterFailover::apply;
	}

}
