package io.couponevent.waitingroom.config;

import java.time.Duration;

import io.couponevent.testsupport.TlsRedis;
import io.lettuce.core.ClientOptions.DisconnectedBehavior;
import io.lettuce.core.cluster.ClusterClientOptions;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 37, item 14: the queue's Redis client (Spring Boot's) keeps the TLS bundle
 * ({@code SPRING_DATA_REDIS_SSL_BUNDLE}) and the connect timeout beside the failover
 * settings ({@code ClusterFailover}), against a Redis Cluster node that speaks only TLS
 * with a certificate of a private CA that only the bundle trusts.
 */
class RedisClientOptionsTest {

	@Configuration(proxyBeanMethods = false)
	@EnableConfigurationProperties(WaitingRoomProperties.class)
	static class Properties {

	}

	@Test
	void theQueuesClientTrustsTheBundlesCaAndKeepsTheConnectTimeout() throws Exception {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withUserConfiguration(Properties.class, RedisConfig.class)
			.withPropertyValues(TlsRedis.shared().bootProperties())
			.withPropertyValues("coupon.waiting-room.api-url=http://127.0.0.1:1")
			.run((context) -> {
				// The gate keys go through the same client when the API shares the
				// queue's
				// Redis.
				IssuanceRedis issuance = context.getBean(IssuanceRedis.class);
				issuance.template().opsForValue().set(issuance.gateKey(1), "over TLS");
				assertThat(issuance.template().opsForValue().get(issuance.gateKey(1))).isEqualTo("over TLS");
				ClusterClientOptions options = (ClusterClientOptions) context.getBean(LettuceConnectionFactory.class)
					.getClientConfiguration()
					.getClientOptions()
					.orElseThrow();
				assertThat(options.getSocketOptions().getConnectTimeout()).as("connect timeout")
					.isEqualTo(Duration.ofSeconds(2));
				assertThat(options.getTopologyRefreshOptions().isPeriodicRefreshEnabled()).isTrue();
				assertThat(options.getDisconnectedBehavior()).isEqualTo(DisconnectedBehavior.REJECT_COMMANDS);
			});
	}

}
