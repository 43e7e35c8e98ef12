package io.couponevent.api.config;

import java.time.Duration;

import io.couponevent.common.redis.ClusterFailover;
import io.couponevent.testsupport.TlsRedis;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.ClientOptions.DisconnectedBehavior;
import io.lettuce.core.cluster.ClusterClientOptions;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 37, item 14: the failover settings are added to Spring Boot's client options, not
 * put in their place, so the Redis TLS bundle ({@code SPRING_DATA_REDIS_SSL_BUNDLE}) and
 * the connect timeout survive. Against a real Redis Cluster node that speaks only TLS,
 * with a certificate of a private CA that only the bundle trusts.
 */
class RedisClientOptionsTest {

	@Test
	void theClientTrustsTheBundlesCaAndKeepsTheConnectTimeout() throws Exception {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withUserConfiguration(RedisConfig.class)
			.withPropertyValues(TlsRedis.shared().bootProperties())
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				template.opsForValue().set("{tls}:api", "over TLS");
				assertThat(template.opsForValue().get("{tls}:api")).isEqualTo("over TLS");
				ClientOptions options = context.getBean(LettuceConnectionFactory.class)
					.getClientConfiguration()
					.getClientOptions()
					.orElseThrow();
				assertThat(options.getSocketOptions().getConnectTimeout()).isEqualTo(Duration.ofSeconds(2));
				// and the failover settings are there
				assertThat(((ClusterClientOptions) options).getTopologyRefreshOptions().getRefreshPeriod())
					.isEqualTo(ClusterFailover.REFRESH);
				assertThat(options.getDisconnectedBehavior()).isEqualTo(DisconnectedBehavior.REJECT_COMMANDS);
			});
	}

}
