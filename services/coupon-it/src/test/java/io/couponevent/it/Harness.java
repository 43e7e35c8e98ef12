package io.couponevent.it;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/** The real harness (addresses from {@code local/infra.sh env}), tokens and direct data access. */
final class Harness {

    static final String JWT_SECRET = "local-dev-secret-change-me-0123456789abcdef";
    static final String TOPIC = "coupon-issuance";

    private Harness() {
    }

    static int portOffset() {
        return Integer.parseInt(env("PORT_OFFSET", "0"));
    }

    static String kafkaBootstrap() {
        return env("KAFKA_BOOTSTRAP", "127.0.0.1:19092,127.0.0.1:19093,127.0.0.1:19094");
    }

    static List<String> redisNodes() {
        return Arrays.stream(env("REDIS_NODES", "127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003").split("[,\\s]+"))
                .filter(s -> !s.isBlank()).toList();
    }

    static String dbUrl() {
        return env("DB_URL", "jdbc:mysql://127.0.0.1:13306/coupon");
    }

    static String dbUser() {
        return env("DB_USER", "coupon");
    }

    static String dbPassword() {
        return env("DB_PASSWORD", "coupon");
    }

    static long uniqueCouponId() {
        return System.currentTimeMillis() * 1000 + (long) (Math.random() * 1000);
    }

    static String token(String sub, boolean admin) {
        try {
            JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(sub).issueTime(new Date())
                    .expirationTime(Date.from(Instant.now().plusSeconds(3600)))
                    .claim("roles", admin ? List.of("admin") : List.of()).build();
            SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
            jwt.sign(new MACSigner(JWT_SECRET.getBytes(StandardCharsets.UTF_8)));
            return jwt.serialize();
        } catch (com.nimbusds.jose.JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    static void ensureTopic() throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafkaBootstrap());
        try (Admin admin = Admin.create(props)) {
            try {
                admin.createTopics(List.of(new NewTopic(TOPIC, 12, (short) 3).configs(Map.of("min.insync.replicas", "2"))))
                        .all().get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) throw e;
            }
        }
    }

    static Connection db() throws SQLException {
        return DriverManager.getConnection(dbUrl(), dbUser(), dbPassword());
    }

    static long rows(long couponId) throws SQLException {
        try (Connection c = db(); PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM issued_coupons WHERE coupon_id = ?")) {
            s.setLong(1, couponId);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    static Set<String> users(long couponId) throws SQLException {
        Set<String> users = new HashSet<>();
        try (Connection c = db(); PreparedStatement s = c.prepareStatement("SELECT user_id FROM issued_coupons WHERE coupon_id = ?")) {
            s.setLong(1, couponId);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) users.add(rs.getString(1));
            }
        }
        return users;
    }

    static long distinctSlots(long couponId) throws SQLException {
        try (Connection c = db();
                PreparedStatement s = c.prepareStatement("SELECT COUNT(DISTINCT slot), MAX(slot) FROM issued_coupons WHERE coupon_id = ?")) {
            s.setLong(1, couponId);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    static RedisClusterClient redis() {
        return RedisClusterClient.create(redisNodes().stream().map(n -> {
            String[] hp = n.split(":");
            return RedisURI.create(hp[0], Integer.parseInt(hp[1]));
        }).toList());
    }

    /** Data loss on every master at once (what a Redis Cluster restart without persistence does). */
    static void flushAllMasters() {
        RedisClusterClient client = redis();
        try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
            connection.sync().masters().commands().flushall();
        } finally {
            client.shutdown();
        }
    }

    /**
     * How long a service process may take to become ready: two Spring Boot JVMs beside three
     * brokers on a starved 2-core VM took up to 12.5 minutes (env HARNESS_SERVICE_START_TIMEOUT_SECONDS).
     */
    static Duration serviceStartTimeout() {
        return Duration.ofSeconds(Long.parseLong(env("HARNESS_SERVICE_START_TIMEOUT_SECONDS", "900")));
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
