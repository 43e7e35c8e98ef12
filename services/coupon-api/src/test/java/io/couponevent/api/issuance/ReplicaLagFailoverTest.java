package io.couponevent.api.issuance;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.couponevent.api.coupon.Coupon;
import io.couponevent.api.issuance.Decision.Outcome;
import io.couponevent.common.redis.ClusterFailover;
import io.couponevent.testsupport.Eventually;
import io.couponevent.testsupport.Harness;
import io.couponevent.testsupport.RequiresHarness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 37, item 2: replication is asynchronous, so a master killed while its replicas
 * lag takes the writes it acknowledged with it. Staged for real on the harness's Redis
 * Cluster: every replica of the coupon's master is stopped (SIGSTOP), reservations are
 * made, the master is SIGKILLed, the replicas resume and one takes over. Every
 * reservation answered ACCEPTED (what the API turns into a 202 and a Kafka record) must
 * be on the new master, and its slot number must never be minted again.
 */
@RequiresHarness
class ReplicaLagFailoverTest {

	private static LettuceConnectionFactory factory;

	private static ReservationStore store;

	@BeforeAll
	static void connect() {
		factory = new LettuceConnectionFactory(new RedisClusterConfiguration(Harness.redisNodes()),
				LettuceClientConfiguration.builder()
					.clientOptions(ClusterFailover.options().build())
					.commandTimeout(Duration.ofSeconds(2))
					.build());
		factory.afterPropertiesSet();
		factory.start();
		store = new ReservationStore(new StringRedisTemplate(factory));
	}

	@AfterAll
	static void disconnect() {
		factory.destroy();
	}

	@Test
	void aReservationAcceptedWhileTheReplicaLagsSurvivesItsMastersDeath() throws Exception {
		Instant now = Instant.now();
		Coupon c = new Coupon(Harness.uniqueCouponId(), "lag", 50, now.minusSeconds(60), now.plusSeconds(3600), false,
				1);
		assertThat(store.upsertMeta(c, true)).isEqualTo(ReservationStore.MetaResult.CREATED);
		Map<String, Decision> accepted = new LinkedHashMap<>();
		for (int i = 0; i < 3; i++) {
			accepted.put("before-" + i, store.reserve(c.id(), "before-" + i, System.currentTimeMillis() + 1000, true));
		}
		byte[] key = new CouponKeys(c.id()).meta().getBytes();
		int master;
		List<String> replicaPids = new ArrayList<>();
		RedisClusterConnection cluster = factory.getClusterConnection();
		try {
			RedisClusterNode owner = cluster.clusterGetNodeForKey(key);
			master = owner.getPort();
			for (RedisClusterNode replica : cluster.clusterGetReplicas(owner)) {
				awaitReplicaCaughtUp(master, replica.getPort());
				replicaPids.add(Harness.infraOutput("pid", "redis-" + replica.getPort()));
			}
		}
		finally {
			cluster.close();
		}
		assertThat(replicaPids).as("replicas of the coupon's master").isNotEmpty();
		boolean masterKilled = false;
		try {
			// Every replica lags: one that kept up would hold each reservation. Stopped,
			// a
			// replica would still find what the master sent meanwhile in its socket's
			// receive buffer: the replication links are cut too, and they cannot
			// reconnect while stopped.
			for (String pid : replicaPids) {
				signal("STOP", pid);
			}
			cli(master, "client", "kill", "type", "replica");
			for (int i = 0; i < 5; i++) {
				String user = "lagging-" + i;
				accepted.put(user, store.reserve(c.id(), user, System.currentTimeMillis() + 1000, true));
			}
			assertThat(accepted.values()).extracting(Decision::outcome)
				.as("reservations while the replica lags are not accepted")
				.containsOnly(Outcome.ACCEPTED, Outcome.UNREPLICATED);
			Harness.infra("redis-kill", Integer.toString(master));
			masterKilled = true;
		}
		finally {
			for (String pid : replicaPids) {
				signal("CONT", pid);
			}
		}
		try {
			Harness.infra("redis-wait-failover", Integer.toString(master), "120");
			// The client learns the new master at its next topology refresh.
			assertThat(Eventually.await(Duration.ofSeconds(60), ReplicaLagFailoverTest.reachable(c.id()),
					Boolean::booleanValue))
				.as("the coupon's keys reachable after the failover")
				.isTrue();
			accepted.values().removeIf((decision) -> decision.outcome() != Outcome.ACCEPTED);
			int highest = 0;
			for (Map.Entry<String, Decision> entry : accepted.entrySet()) {
				assertThat(store.find(c.id(), entry.getKey()))
					.as("acknowledged reservation of %s after the failover", entry.getKey())
					.get()
					.extracting(Reservation::slot)
					.isEqualTo(entry.getValue().slot());
				highest = Math.max(highest, entry.getValue().slot());
			}
			assertThat(store.mintedSlots(c.id())).as("slot numbers minted").isGreaterThanOrEqualTo(highest);
			// The old master comes back as the new one's replica: reservations are
			// accepted again, under slot numbers not handed out before.
			Harness.infra("redis-start", Integer.toString(master));
			masterKilled = false;
			Decision next = Eventually.await(Duration.ofSeconds(60),
					() -> store.reserve(c.id(), "after", System.currentTimeMillis() + 2000, true),
					(decision) -> decision.outcome() == Outcome.ACCEPTED);
			assertThat(next.outcome()).isEqualTo(Outcome.ACCEPTED);
			assertThat(accepted.values()).extracting(Decision::slot)
				.as("slots already acknowledged (in Kafka)")
				.doesNotContain(next.slot());
		}
		finally {
			if (masterKilled) {
				Harness.infra("redis-start", Integer.toString(master));
			}
		}
	}

	private static Supplier<Boolean> reachable(long couponId) {
		return () -> {
			try {
				return store.stateExists(couponId);
			}
			catch (DataAccessException e) {
				return false;
			}
		};
	}

	private static void awaitReplicaCaughtUp(int master, int replica) throws Exception {
		for (int i = 0; i < 100; i++) {
			if (offset(replica, "slave_repl_offset") >= offset(master, "master_repl_offset")) {
				return;
			}
			Thread.sleep(100);
		}
		throw new IllegalStateException("replica " + replica + " did not catch up with " + master);
	}

	private static long offset(int port, String field) throws Exception {
		return cli(port, "info", "replication").lines()
			.filter((line) -> line.startsWith(field + ":"))
			.mapToLong((line) -> Long.parseLong(line.substring(field.length() + 1).trim()))
			.findFirst()
			.orElse(-1);
	}

	private static String cli(int port, String... command) throws Exception {
		List<String> line = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port)));
		line.addAll(List.of(command));
		Process cli = new ProcessBuilder(line).start();
		String output = new String(cli.getInputStream().readAllBytes());
		cli.waitFor();
		return output;
	}

	private static void signal(String name, String pid) throws Exception {
		new ProcessBuilder("kill", "-" + name, pid).inheritIO().start().waitFor();
	}

}
