package io.couponevent.waitingroom.config;

import java.time.Duration;

import io.couponevent.testsupport.TlsRedis;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.ClientOptions.DisconnectedBehavior;
import io.lettuce.core.cluster.ClusterClientOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 37, item 14: the queue's Redis client (Spring Boot's) keeps the TLS bundle
 * ({@code SPRING_DATA_REDIS_SSL_BUNDLE}) and the connect timeout beside the failover
 * settings. Against a real Redis Cluster node that speaks only TLS, with a certificate of
 * a private CA that only the bundle trusts.
 */
class RedisClientOptionsTest {

	private static TlsRedis redis;

	@BeforeAll
	static void start() throws Exception {
		redis = TlsRedis.start();
	}

	@AfterAll
	static void stop() {
		if (redis != null) {
			redis.close();
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableConfigurationProperties(WaitingRoomProperties.class)
	static class Properties {

	}

	@Test
	void theQueuesClientTrustsTheBundlesCaAndKeepsTheConnectTimeout() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withUserConfiguration(Properties.class, RedisConfig.class)
			.withPropertyValues("coupon.waiting-room.api-url=http://127.0.0.1:1",
					"spring.data.redis.cluster.nodes=" + redis.node(), "spring.data.redis.timeout=5s",
					"spring.data.redis.connect-timeout=2s", "spring.data.redis.ssl.bundle=redis",
					"spring.ssl.bundle.pem.redis.truststore.certificate=file:" + redis.caCertificate())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				template.opsForValue().set("{tls}:probe", "over TLS");
				assertThat(template.opsForValue().get("{tls}:probe")).isEqualTo("over TLS");
				ClientOptions options = context.getBean(LettuceConnectionFactory.class)
					.getClientConfiguration()
					.getClientOptions()
					.orElseThrow();
				assertThat(options.getSocketOptions().getConnectTimeout()).isEqualTo(Duration.ofSeconds(2));
				ClusterClientOptions cluster = (ClusterClientOptions) options;
				assertThat(cluster.getTopologyRefreshOptions().getRefreshPeriod()).isEqualTo(Duration.ofSeconds(5));
				assertThat(cluster.getDisconnectedBehavior()).isEqualTo(DisconnectedBehavior.REJECT_COMMANDS);
			});
	}

}
