package io.couponevent.api.config;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lost broker or Redis master costs a request no more than its own deadline: the
 * producer routes around an unavailable leader and refreshes its metadata within a send
 * timeout; the Redis client learns a new master within a second of the failover.
 */
class FailoverSettingsTest {

	private static final Duration SEND_TIMEOUT = Duration.ofSeconds(2);

	private static Map<String, Object> producer() {
		DefaultKafkaProducerFactory<String, String> factory = new DefaultKafkaProducerFactory<>(new HashMap<>());
		new KafkaConfig()
			.producerTimeouts(new IssuanceProperties(SEND_TIMEOUT, Duration.ofSeconds(1), 256, Duration.ofMillis(500)))
			.customize(factory);
		return factory.getConfigurationProperties();
	}

	private static long millis(Object value) {
		return ((Number) value).longValue();
	}

	@Test
	void sendsWaitNoLongerThanTheSendTimeout() {
		Map<String, Object> config = producer();
		assertThat(millis(config.get(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG)))
			.isLessThanOrEqualTo(SEND_TIMEOUT.toMillis());
		assertThat(millis(config.get(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG)))
			.isLessThan(millis(config.get(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG)));
		assertThat(millis(config.get(ProducerConfig.MAX_BLOCK_MS_CONFIG))).isLessThan(SEND_TIMEOUT.toMillis());
	}

	@Test
	void anUnavailableLeaderIsRoutedAroundWithinOneSend() {
		Map<String, Object> config = producer();
		assertThat(config).containsKey(ProducerConfig.PARTITIONER_AVAILABILITY_TIMEOUT_MS_CONFIG);
		assertThat(millis(config.get(ProducerConfig.PARTITIONER_AVAILABILITY_TIMEOUT_MS_CONFIG))).isPositive()
			.isLessThan(SEND_TIMEOUT.toMillis());
	}

	@Test
	void metadataIsRefreshedWithinOneSendTimeout() {
		Map<String, Object> config = producer();
		assertThat(config).containsKey(ProducerConfig.METADATA_MAX_AGE_CONFIG);
		assertThat(millis(config.get(ProducerConfig.METADATA_MAX_AGE_CONFIG)))
			.isLessThanOrEqualTo(SEND_TIMEOUT.toMillis());
	}

	@Test
	void theRedisClientLearnsANewMasterWithinASecond() {
		LettuceClientConfiguration.LettuceClientConfigurationBuilder builder = LettuceClientConfiguration.builder();
		new RedisConfig().clusterTopologyRefresh().customize(builder);
		ClusterClientOptions options = (ClusterClientOptions) builder.build().getClientOptions().orElseThrow();
		ClusterTopologyRefreshOptions refresh = options.getTopologyRefreshOptions();
		assertThat(refresh.isPeriodicRefreshEnabled()).isTrue();
		assertThat(refresh.getRefreshPeriod()).isLessThanOrEqualTo(Duration.ofSeconds(1));
		assertThat(refresh.getAdaptiveRefreshTimeout()).isLessThanOrEqualTo(Duration.ofSeconds(1));
	}

}
