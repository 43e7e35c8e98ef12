package io.couponevent.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import tools.jackson.databind.JsonNode;

/**
 * coupon-api and coupon-consumer as real processes on the real harness (Redis Cluster, 3 Kafka
 * brokers, MariaDB): the guarantees of a first-come-first-served event under load and faults.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EndToEndIT {

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
        Harness.ensureTopic();
        consumer = new ServiceProcess("coupon-consumer", "it.consumer.jar", CONSUMER_MANAGEMENT_PORT,
                common(CONSUMER_PORT, CONSUMER_MANAGEMENT_PORT)).start();
        api = startApi();
        consumer.awaitReady(Duration.ofSeconds(180));
        traffic = new Traffic(API_PORT);
    }

    private static ServiceProcess startApi() throws Exception {
        Map<String, String> env = common(API_PORT, API_MANAGEMENT_PORT);
        env.put("SPRING_DATA_REDIS_CLUSTER_NODES", String.join(",", Harness.redisNodes()));
        // Short enough for a test to watch the reconciler release what a killed process left behind.
        env.put("COUPON_RECONCILER_INTERVAL", "1s");
        env.put("COUPON_RECONCILER_STALE_AFTER", "5s");
        ServiceProcess process = new ServiceProcess("coupon-api", "it.api.jar", API_MANAGEMENT_PORT, env).start();
        process.awaitReady(Duration.ofSeconds(180));
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
        return env;
    }

    @AfterAll
    static void stopServices() throws Exception {
        if (api != null) api.close();
        if (consumer != null) consumer.close();
    }

    @Test
    @Order(1)
    void spikeNeverOverIssuesAndEvery202BecomesARow() throws Exception {
        long coupon = Harness.uniqueCouponId();
        assertThat(traffic.createCoupon(coupon, 1000)).isEqualTo(201);
        // 10,000 users, 20,000 requests: every user asks twice, shuffled, so many retries run in parallel.
        List<String> requests = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            requests.add("spike-" + coupon + "-" + i);
            requests.add("spike-" + coupon + "-" + i);
        }
        Collections.shuffle(requests, new Random(42));
        long start = System.nanoTime();
        Traffic.Result result = traffic.issue(coupon, requests, 500, done -> { });
        long seconds = Math.max(1, (System.nanoTime() - start) / 1_000_000_000);
        System.out.printf("spike: %d requests in %ds, statuses %s%n", requests.size(), seconds, result.byStatus());

        assertThat(result.count(202)).isEqualTo(1000);
        assertThat(result.accepted()).hasSize(1000);
        assertThat(result.count(500)).as("no server error").isZero();
        JsonNode report = awaitConsistent(coupon, Duration.ofSeconds(120));
        assertThat(Harness.rows(coupon)).isEqualTo(1000);
        assertThat(Harness.distinctSlots(coupon)).isEqualTo(1000);
        assertThat(Harness.users(coupon)).containsAll(result.accepted());
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
        for (int i = 0; i < 4000; i++) users.add("flush-" + coupon + "-" + i);
        AtomicBoolean flushed = new AtomicBoolean();
        Traffic.Result during = traffic.issue(coupon, users, 100, done -> {
            if (done == 300 && flushed.compareAndSet(false, true)) Harness.flushAllMasters();
        });
        System.out.printf("flush: statuses %s%n", during.byStatus());
        assertThat(flushed).isTrue();
        assertThat(during.count(500)).isZero();

        // The reconciler rebuilds the lost state from MySQL once the consumer has caught up.
        awaitConsistent(coupon, Duration.ofSeconds(120));
        assertThat(Harness.rows(coupon)).isLessThanOrEqualTo(quantity);
        assertThat(Harness.users(coupon)).containsAll(rowsExpectedFrom(during));

        // Sell out what is left: the total never exceeds the quantity and no stock is stranded.
        List<String> more = new ArrayList<>();
        for (int i = 0; i < 2000; i++) more.add("flush-late-" + coupon + "-" + i);
        traffic.issue(coupon, more, 100, done -> { });
        JsonNode report = awaitConsistent(coupon, Duration.ofSeconds(120));
        assertThat(Harness.rows(coupon)).isEqualTo(quantity);
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
        for (int i = 0; i < 1500; i++) users.add("kill-" + coupon + "-" + i);
        AtomicBoolean killed = new AtomicBoolean();
        Traffic.Result during = traffic.issue(coupon, users, 100, done -> {
            if (done == 150 && killed.compareAndSet(false, true)) {
                try {
                    api.kill();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        System.out.printf("kill: statuses %s%n", during.byStatus());
        assertThat(killed).isTrue();
        api = startApi();

        // Whatever the killed process reserved but never sent is released after stale-after (5s).
        List<String> more = new ArrayList<>();
        for (int i = 0; i < 1500; i++) more.add("kill-late-" + coupon + "-" + i);
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        int round = 0;
        while (Harness.rows(coupon) < quantity && System.nanoTime() < deadline) {
            String suffix = roundSuffix(round);
            List<String> batch = more.stream().map(u -> u + "-" + suffix).toList();
            traffic.issue(coupon, batch.subList(0, 300), 100, done -> { });
            awaitConsistent(coupon, Duration.ofSeconds(60));
            round++;
        }
        assertThat(Harness.rows(coupon)).as("sold out exactly: no stranded stock").isEqualTo(quantity);
        assertThat(Harness.users(coupon)).containsAll(during.accepted());
    }

    private static String roundSuffix(int round) {
        return "r" + round;
    }

    /** Polls the reconciliation report until Redis and MySQL agree (all sends persisted). */
    private static JsonNode awaitConsistent(long coupon, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        JsonNode report = null;
        while (System.nanoTime() < deadline) {
            try {
                report = traffic.reconciliation(coupon);
                if (report.get("consistent").asBoolean()) return report;
            } catch (Exception e) {
                report = null;
            }
            Thread.sleep(500);
        }
        throw new AssertionError("Redis and MySQL still differ after " + timeout + ": " + report);
    }
}
