package io.couponevent.waitingroom.config;

import java.time.Duration;

import io.couponevent.common.redis.ClusterFailover;
import io.couponevent.common.redis.KeyPrefix;
import io.lettuce.core.SslOptions;
import io.lettuce.core.cluster.ClusterClientOptions;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The queue's Redis (Spring Boot's) and the issuance Redis, when it is another cluster
 * (with a client of its own), follow failovers as the API's client does
 * ({@link ClusterFailover}).
 */
@Configuration(proxyBeanMethods = false)
class RedisConfig {

	/**
	 * Added to Spring Boot's client options, which carry the TLS bundle
	 * ({@code spring.data.redis.ssl.bundle}) and the connect timeout.
	 */
	@Bean
	LettuceClientOptionsBuilderCustomizer clusterTopologyRefresh() {
		return ClusterFailover::apply;
	}

	/**
	 * Not a RedisConnectionFactory bean: one would switch Spring Boot's own (the queue's)
	 * off.
	 */
	@Bean(destroyMethod = "destroy")
	IssuanceRedis issuanceRedis(WaitingRoomProperties properties, StringRedisTemplate queueRedis,
			ObjectProvider<SslBundles> sslBundles, @Value(KeyPrefix.PROPERTY) String keyPrefix) {
		WaitingRoomProperties.IssuanceRedis settings = properties.issuanceRedis();
		String prefix = KeyPrefix.of(keyPrefix);
		if (settings.nodes().isEmpty()) {
			return new IssuanceRedis(queueRedis, null, prefix);
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(clusterOf(settings),
				clientOf(settings, sslBundles.getIfAvailable()));
		factory.afterPropertiesSet();
		factory.start();
		return new IssuanceRedis(new StringRedisTemplate(factory), factory, prefix);
	}

	/** The API's cluster: its nodes and password. */
	static RedisClusterConfiguration clusterOf(WaitingRoomProperties.IssuanceRedis settings) {
		RedisClusterConfiguration cluster = new RedisClusterConfiguration(settings.nodes());
		if (settings.password() != null) {
			cluster.setPassword(RedisPassword.of(settings.password()));
		}
		return cluster;
	}

	/** The client: failover-aware, TLS when asked, trusting the bundle's certificates. */
	static LettuceClientConfiguration clientOf(WaitingRoomProperties.IssuanceRedis settings, SslBundles bundles) {
		ClusterClientOptions.Builder options = ClusterFailover.options();
		LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
			.commandTimeout(Duration.ofSeconds(1));
		if (settings.ssl().enabled()) {
			client.useSsl();
			if (settings.ssl().bundle() != null) {
				if (bundles == null) {
					throw new IllegalStateException("coupon.waiting-room.issuance-redis.ssl.bundle is set but no "
							+ "spring.ssl.bundle is configured");
				}
				SslBundle bundle = bundles.getBundle(settings.ssl().bundle());
				options.sslOptions(SslOptions.builder()
					.trustManager(bundle.getManagers().getTrustManagerFactory())
					.keyManager(bundle.getManagers().getKeyManagerFactory())
					.build());
			}
		}
		return client.clientOptions(options.build()).build();
	}

}
