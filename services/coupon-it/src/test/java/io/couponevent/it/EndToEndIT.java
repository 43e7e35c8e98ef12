package io.couponevent.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import io.couponevent.testsupport.Database;
import io.couponevent.testsupport.Harness;
import io.couponevent.testsupport.Kafka;
import io.couponevent.testsupport.RequiresHarness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * coupon-api and coupon-consumer as real processes on the real harness (Redis Cluster, 3
 * Kafka brokers, MariaDB): the guarantees of a first-come-first-served event under load
 * and faults.
 */
@RequiresHarness
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EndToEndIT {

	private static final Database DB = Database.harness();

	private static final int OFFSET = Harness.portOffset();

	private static final int API_PORT = 8080 + OFFSET;

	private static final int API_MANAGEMENT_PORT = 8081 + OFFSET;

	private static final int CONSUMER_PORT = 8090 + OFFSET;

	private static final int CONSUMER_MANAGEMENT_PORT = 8091 + OFFSET;

	private static ServiceProcess consumer;

	private static ServiceProcess api;

	private static Traffic traffic;

	@BeforeAll
	static void startServices() throws Exception {
		Kafka.ensureIssuanceTopic();
		consumer = new ServiceProcess("coupon-consumer", "it.consumer.jar", CONSUMER_MANAGEMENT_PORT,
				common(CONSUMER_PORT, CONSUMER_MANAGEMENT_PORT))
			.start();
		api = startApi();
		consumer.awaitReady(Harness.serviceStartTimeout());
		traffic = new Traffic(API_PORT);
	}

	private static ServiceProcess startApi() throws Exception {
		Map<String, String> env = common(API_PORT, API_MANAGEMENT_PORT);
		env.put("SPRING_DATA_REDIS_CLUSTER_NODES", String.join(",", Harness.redisNodes()));
		env.put("COUPON_RECONCILER_INTERVAL", "1s");
		// The admission bound for a 2-core box that also runs Kafka, Redis and MariaDB
		// (as local/services.sh sets it): more in flight made Redis and Kafka calls
		// outlast their timeouts.
		env.put("COUPON_ISSUANCE_MAX_IN_FLIGHT", System.getProperty("it.api.max-in-flight", "64"));
		// On a starved shared box a young collection can take seconds (one GC thread
		// among many runnable ones): a 2 s send bound would turn most sends into
		// compensations there.
		String sendTimeout = System.getProperty("it.api.send-timeout", "10s");
		env.put("COUPON_ISSUANCE_SEND_TIMEOUT", sendTimeout);
		env.put("COUPON_ISSUANCE_DELIVERY_TIMEOUT", sendTimeout);
		// Short enough for a test to watch the reconciler release what a killed process
		// left behind: the delivery timeout and no commit lag (no broker here stalls as a
		// slow follower for long), where a pod's covers the brokers' 30 s.
		env.put("COUPON_RECONCILER_COMMIT_LAG", "0s");
		env.put("COUPON_RECONCILER_STALE_AFTER", sendTimeout);
		ServiceProcess process = new ServiceProcess("coupon-api", "it.api.jar", API_MANAGEMENT_PORT, env).start();
		process.awaitReady(Harness.serviceStartTimeout());
		return process;
	}

	private static Map<String, String> common(int port, int managementPort) {
		Map<String, String> env = new HashMap<>();
		env.put("SERVER_PORT", Integer.toString(port));
		env.put("MANAGEMENT_SERVER_PORT", Integer.toString(managementPort));
		env.put("SPRING_DATASOURCE_URL", Harness.dbUrl());
		env.put("SPRING_DATASOURCE_USERNAME", Harness.dbUser());
		env.put("SPRING_DATASOURCE_PASSWORD", Harness.dbPassword());
		env.put("SPRING_KAFKA_BOOTSTRAP_SERVERS", Harness.kafkaBootstrap());
		env.put("COUPON_SECURITY_JWT_SECRET", Harness.JWT_SECRET);
		// A loaded MariaDB answered the handshake slower than the services' 2 s default
		// (as in local/services.sh): Flyway then failed the start with a communications
		// link failure.
		env.put("SPRING_DATASOURCE_HIKARI_CONNECTIONTIMEOUT", "30000");
		return env;
	}

	@AfterAll
	static void stopServices() throws Exception {
		if (api != null) {
			api.close();
		}
		if (consumer != null) {
			consumer.close();
		}
	}

	@Test
	@Order(1)
	void spikeNeverOverIssuesAndEvery202BecomesARow() throws Exception {
		long coupon = Harness.uniqueCouponId();
		assertThat(traffic.createCoupon(coupon, 1000)).isEqualTo(201);
		// 10,000 users, 20,000 requests: every user asks twice, shuffled, so many retries
		// run in parallel.
		List<String> requests = new ArrayList<>();
		for (int i = 0; i < 10_000; i++) {
			requests.add("spike-" + coupon + "-" + i);
			requests.add("spike-" + coupon + "-" + i);
		}
		Collections.shuffle(requests, new Random(42));
		long start = System.nanoTime();
		// 128 in flight: twice the API's admission bound, so there is always a queue and
		// a shed.
		Traffic.Result result = traffic.issue(coupon, requests, 128, done -> {
		});
		long seconds = Math.max(1, (System.nanoTime() - start) / 1_000_000_000);
		System.out.printf("spike: %d requests in %ds, statuses %s%n", requests.size(), seconds, result.byStatus());

		assertThat(result.count(500)).as("no server error").isZero();
		assertThat(result.count(202)).as("never more 202s than coupons").isLessThanOrEqualTo(1000);
		assertThat(result.accepted()).as("never two 202s for one user").hasSize(result.count(202));
		// A send that outlasted its bound was answered 503 and holds its slot until the
		// reconciler settles it (adopted if it landed, released if not): sell out
		// whatever that released.
		Set<String> late = sellOut(coupon, 1000, "spike-late-" + coupon);
		JsonNode report = awaitConsistent(coupon, Duration.ofSeconds(120));
		assertThat(DB.rows(coupon)).isEqualTo(1000);
		assertThat(DB.distinctSlots(coupon)).isEqualTo(1000);
		assertThat(DB.users(coupon)).containsAll(result.accepted());
		assertThat(DB.users(coupon)).as("every row belongs to a 202 or an ambiguous answer")
			.isSubsetOf(union(result.accepted(), result.ambiguous(), late));
		assertThat(report.get("redisIssued").asLong()).isEqualTo(1000);
		assertThat(report.get("remaining").asLong()).isZero();
	}

	@Test
	@Order(2)
	void redisDataLossMidEventNeverOverIssues() throws Exception {
		long coupon = Harness.uniqueCouponId();
		int quantity = 500;
		assertThat(traffic.createCoupon(coupon, quantity)).isEqualTo(201);
		List<String> users = new ArrayList<>();
		for (int i = 0; i < 4000; i++) {
			users.add("flush-" + coupon + "-" + i);
		}
		AtomicBoolean flushed = new AtomicBoolean();
		Traffic.Result during = traffic.issue(coupon, users, 100, done -> {
			if (done == 300 && flushed.compareAndSet(false, true)) {
				Redis.flushAllMasters();
			}
		});
		System.out.printf("flush: statuses %s%n", during.byStatus());
		assertThat(flushed).isTrue();
		assertThat(during.count(500)).isZero();

		// The reconciler rebuilds the lost state from MySQL once the consumer has caught
		// up.
		awaitConsistent(coupon, Duration.ofSeconds(120));
		assertThat(DB.rows(coupon)).isLessThanOrEqualTo(quantity);
		assertThat(DB.users(coupon)).containsAll(rowsExpectedFrom(during));

		// Sell out what is left: the total never exceeds the quantity and no stock is
		// stranded.
		sellOut(coupon, quantity, "flush-late-" + coupon);
		JsonNode report = awaitConsistent(coupon, Duration.ofSeconds(120));
		assertThat(DB.rows(coupon)).isEqualTo(quantity);
		assertThat(report.get("remaining").asLong()).isZero();
	}

	/** Users that got a 202 before the flush are in MySQL; after it every 202 is, too. */
	private static Set<String> rowsExpectedFrom(Traffic.Result result) {
		return result.accepted();
	}

	@Test
	@Order(3)
	void killedApiIsReconciledAndStrandsNoStock() throws Exception {
		long coupon = Harness.uniqueCouponId();
		int quantity = 300;
		assertThat(traffic.createCoupon(coupon, quantity)).isEqualTo(201);
		List<String> users = new ArrayList<>();
		for (int i = 0; i < 1500; i++) {
			users.add("kill-" + coupon + "-" + i);
		}
		AtomicBoolean killed = new AtomicBoolean();
		Traffic.Result during = traffic.issue(coupon, users, 100, done -> {
			if (done == 150 && killed.compareAndSet(false, true)) {
				try {
					api.kill();
				}
				catch (InterruptedException e) {
					Thread.currentThread().interrupt();
				}
			}
		});
		System.out.printf("kill: statuses %s%n", during.byStatus());
		assertThat(killed).isTrue();
		api = startApi();

		// Whatever the killed process reserved but never sent is released after
		// stale-after (the send timeout here).
		sellOut(coupon, quantity, "kill-late-" + coupon);
		assertThat(DB.rows(coupon)).as("sold out exactly: no stranded stock").isEqualTo(quantity);
		assertThat(DB.users(coupon)).containsAll(during.accepted());
	}

	/**
	 * Rounds of 300 new users until MySQL holds {@code quantity} rows (or 5 minutes
	 * pass); returns the users that got a 202 or an ambiguous answer, i.e. those that may
	 * hold a row.
	 */
	private static Set<String> sellOut(long coupon, int quantity, String prefix) throws Exception {
		Set<String> mayHold = new HashSet<>();
		long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
		for (int round = 0; System.nanoTime() < deadline; round++) {
			awaitConsistent(coupon, Duration.ofSeconds(120));
			if (DB.rows(coupon) >= quantity) {
				break;
			}
			List<String> batch = new ArrayList<>();
			for (int i = 0; i < 300; i++) {
				batch.add(prefix + "-r" + round + "-" + i);
			}
			Traffic.Result r = traffic.issue(coupon, batch, 100, done -> {
			});
			System.out.printf("sell-out round %d on %d: statuses %s%n", round, coupon, r.byStatus());
			mayHold.addAll(r.accepted());
			mayHold.addAll(r.ambiguous());
		}
		return mayHold;
	}

	@SafeVarargs
	private static Set<String> union(Set<String>... sets) {
		Set<String> all = new HashSet<>();
		for (Set<String> set : sets) {
			all.addAll(set);
		}
		return all;
	}

	/**
	 * Polls the reconciliation report until Redis and MySQL agree (all sends persisted).
	 */
	private static JsonNode awaitConsistent(long coupon, Duration timeout) throws Exception {
		long deadline = System.nanoTime() + timeout.toNanos();
		JsonNode report = null;
		while (System.nanoTime() < deadline) {
			try {
				report = traffic.reconciliation(coupon);
				if (report.get("consistent").asBoolean()) {
					return report;
				}
			}
			catch (Exception e) {
				report = null;
			}
			Thread.sleep(500);
		}
		throw new AssertionError("Redis and MySQL still differ after " + timeout + ": " + report);
	}

}
