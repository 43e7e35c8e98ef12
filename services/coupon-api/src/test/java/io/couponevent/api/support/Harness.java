package io.couponevent.api.support;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/** Addresses of the real harness (from {@code local/infra.sh env}) and its fault switches. */
public final class Harness {

    public static final String TOPIC = "coupon-issuance";
    public static final String JWT_SECRET = "local-dev-secret-change-me-0123456789abcdef";

    private Harness() {
    }

    public static String kafkaBootstrap() {
        return env("KAFKA_BOOTSTRAP", "127.0.0.1:19092,127.0.0.1:19093,127.0.0.1:19094");
    }

    public static List<String> redisNodes() {
        return Arrays.stream(env("REDIS_NODES", "127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003").split("[,\\s]+"))
                .filter(s -> !s.isBlank()).toList();
    }

    public static String dbUrl() {
        return env("DB_URL", "jdbc:mysql://127.0.0.1:13306/coupon");
    }

    public static String dbUser() {
        return env("DB_USER", "coupon");
    }

    public static String dbPassword() {
        return env("DB_PASSWORD", "coupon");
    }

    public static Path repoRoot() {
        return Path.of(env("COUPON_REPO_ROOT", "../..")).toAbsolutePath().normalize();
    }

    /** Runs {@code local/infra.sh <command>} with the caller's PORT_OFFSET/RUN_DIR (inherited env). */
    public static void infra(String command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(repoRoot().resolve("local/infra.sh").toString(), command)
                .directory(repoRoot().toFile()).inheritIO().start();
        // kafka-start waits for a fully replicated cluster: minutes on a busy 2-core CI machine
        // (439 s seen with 30 % CPU steal), so the bound is generous and overridable.
        long bound = Long.parseLong(env("HARNESS_INFRA_TIMEOUT_SECONDS", "900"));
        if (!p.waitFor(bound, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("local/infra.sh " + command + " failed");
        }
    }

    /** The contract's topic (12 partitions, RF 3), in case the harness has not created it yet. */
    public static void ensureTopic() throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafkaBootstrap());
        try (Admin admin = Admin.create(props)) {
            try {
                admin.createTopics(List.of(new NewTopic(TOPIC, 12, (short) 3)
                        .configs(Map.of("min.insync.replicas", "2")))).all().get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) throw e;
            }
        }
    }

    public static long uniqueCouponId() {
        // Unique across runs: the harness keeps its data between runs.
        return System.currentTimeMillis() * 1000 + (long) (Math.random() * 1000);
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
