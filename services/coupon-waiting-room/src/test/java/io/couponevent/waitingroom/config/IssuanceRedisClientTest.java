package io.couponevent.waitingroom.config;

import java.util.List;
import java.util.Map;

import io.couponevent.common.redis.ClusterFailover;
import io.lettuce.core.ClientOptions.DisconnectedBehavior;
import io.lettuce.core.cluster.ClusterClientOptions;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The API's Redis as the chart describes it (environment variables): nodes, password and
 * TLS reach the client that writes the gate keys.
 */
class IssuanceRedisClientTest {

	private static WaitingRoomProperties.IssuanceRedis bind(Map<String, Object> env) {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources()
			.addFirst(new SystemEnvironmentPropertySource(
					"test-" + StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, env));
		return new Binder(ConfigurationPropertySources.get(environment))
			.bind("coupon.waiting-room.issuance-redis", WaitingRoomProperties.IssuanceRedis.class)
			.get();
	}

	@Test
	void theChartsVariablesReachTheClient() {
		WaitingRoomProperties.IssuanceRedis settings = bind(Map.of("COUPON_WAITINGROOM_ISSUANCEREDIS_NODES",
				"redis-0:6379,redis-1:6379", "COUPON_WAITINGROOM_ISSUANCEREDIS_PASSWORD", "s3cret",
				"COUPON_WAITINGROOM_ISSUANCEREDIS_SSL_ENABLED", "true"));
		assertThat(settings.nodes()).containsExactly("redis-0:6379", "redis-1:6379");
		assertThat(RedisConfig.clusterOf(settings).getPassword().get()).containsExactly("s3cret".toCharArray());
		LettuceClientConfiguration client = RedisConfig.clientOf(settings, null);
		assertThat(client.isUseSsl()).isTrue();
	}

	@Test
	void withoutPasswordOrTlsThereIsNone() {
		WaitingRoomProperties.IssuanceRedis settings = new WaitingRoomProperties.IssuanceRedis(List.of("r:6379"), null,
				null);
		assertThat(RedisConfig.clusterOf(settings).getPassword().isPresent()).isFalse();
		assertThat(RedisConfig.clientOf(settings, null).isUseSsl()).isFalse();
	}

	@Test
	void aBundleThatCannotBeFoundFailsTheStart() {
		WaitingRoomProperties.IssuanceRedis settings = new WaitingRoomProperties.IssuanceRedis(List.of("r:6379"), null,
				new WaitingRoomProperties.Ssl(true, "issuance"));
		assertThatIllegalStateException().isThrownBy(() -> RedisConfig.clientOf(settings, null))
			.withMessageContaining("ssl.bundle");
	}

	/**
	 * Issue 37, item 8: both clients follow a failover as the API's does (a 5 s topology
	 * refresh, commands for a disconnected node refused at once instead of buffered).
	 */
	@Test
	void bothClientsFollowFailoversAsTheApisDoes() {
		ClusterClientOptions.Builder boots = ClusterClientOptions.builder();
		new RedisConfig().clusterTopologyRefresh().customize(boots);
		WaitingRoomProperties.IssuanceRedis settings = new WaitingRoomProperties.IssuanceRedis(List.of("r:6379"), null,
				null);
		for (ClusterClientOptions options : List.of(boots.build(),
				(ClusterClientOptions) RedisConfig.clientOf(settings, null).getClientOptions().orElseThrow())) {
			assertThat(options.getTopologyRefreshOptions().getRefreshPeriod()).isEqualTo(ClusterFailover.REFRESH);
			assertThat(options.getTopologyRefreshOptions().isPeriodicRefreshEnabled()).isTrue();
			assertThat(options.getTopologyRefreshOptions().getAdaptiveRefreshTriggers()).isNotEmpty();
			assertThat(options.getDisconnectedBehavior()).isEqualTo(DisconnectedBehavior.REJECT_COMMANDS);
		}
	}

	/**
	 * Issue 37, item 15: the gate keys carry the API's key prefix
	 * ({@code COUPON_REDIS_KEYPREFIX}), so the API of the same event reads them.
	 */
	@Test
	void theGateKeysCarryTheKeyPrefix() {
		WaitingRoomProperties properties = new WaitingRoomProperties(null, java.net.URI.create("http://api:8080"), null,
				null, null, null);
		IssuanceRedis issuance = new RedisConfig().issuanceRedis(properties, null, null, "spring-sale:");
		assertThat(issuance.gateKey(7)).isEqualTo("spring-sale:{coupon:7}:gate");
		assertThat(new RedisConfig().issuanceRedis(properties, null, null, "").gateKey(7)).isEqualTo("{coupon:7}:gate");
	}

}
