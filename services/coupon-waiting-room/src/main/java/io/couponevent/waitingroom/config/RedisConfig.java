package io.couponevent.waitingroom.config;

import java.time.Duration;

import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;

import org.springframework.boot.data.redis.autoconfigure.LettuceClientConfigurationBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The queue's Redis (Spring Boot's) follows failovers; the issuance Redis, when it is
 * another cluster, gets a client of its own.
 */
@Configuration(proxyBeanMethods = false)
class RedisConfig {

	private static ClusterClientOptions clusterOptions() {
		ClusterTopologyRefreshOptions refresh = ClusterTopologyRefreshOptions.builder()
			.enableAllAdaptiveRefreshTriggers()
			.adaptiveRefreshTriggersTimeout(Duration.ofSeconds(5))
			.enablePeriodicRefresh(Duration.ofSeconds(30))
			.build();
		return ClusterClientOptions.builder().topologyRefreshOptions(refresh).maxRedirects(5).build();
	}

	@Bean
	LettuceClientConfigurationBuilderCustomizer clusterTopologyRefresh() {
		return (builder) -> builder.clientOptions(clusterOptions());
	}

	/**
	 * Not a RedisConnectionFactory bean: one would switch Spring Boot's own (the queue's)
	 * off.
	 */
	@Bean(destroyMethod = "destroy")
	IssuanceRedis issuanceRedis(WaitingRoomProperties properties, StringRedisTemplate queueRedis) {
		if (properties.issuanceRedis().nodes().isEmpty()) {
			return new IssuanceRedis(queueRedis, null);
		}
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.clientOptions(clusterOptions())
			.commandTimeout(Duration.ofSeconds(1))
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisClusterConfiguration(properties.issuanceRedis().nodes()), client);
		factory.afterPropertiesSet();
		factory.start();
		return new IssuanceRedis(new StringRedisTemplate(factory), factory);
	}

}
