package io.couponevent.testsupport;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The real harness the tests run against: its addresses (the variables of
 * {@code local/infra.sh env}, with the defaults of {@code PORT_OFFSET=0}), its fault
 * switches, and the bounds a starved machine needs ({@code HARNESS_*_SECONDS}).
 */
public final class Harness {

	/** The contract's issuance topic. */
	public static final String TOPIC = "coupon-issuance";

	/**
	 * The local secret that local/services.sh and the tests' service configuration use.
	 */
	public static final String JWT_SECRET = "local-dev-secret-change-me-0123456789abcdef";

	// Unique across runs (the harness keeps its data between them) and within a run.
	private static final AtomicLong NEXT_COUPON = new AtomicLong(
			System.currentTimeMillis() * 1000 + ThreadLocalRandom.current().nextInt(1000));

	private Harness() {
	}

	public static int portOffset() {
		return Integer.parseInt(env("PORT_OFFSET", "0"));
	}

	public static String kafkaBootstrap() {
		return env("KAFKA_BOOTSTRAP", "127.0.0.1:19092,127.0.0.1:19093,127.0.0.1:19094");
	}

	public static List<String> redisNodes() {
		return Arrays.stream(env("REDIS_NODES", "127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003").split("[,\\s]+"))
			.filter((node) -> !node.isBlank())
			.toList();
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

	/** A coupon id no other test, run or JVM has used. */
	public static long uniqueCouponId() {
		return NEXT_COUPON.incrementAndGet();
	}

	/**
	 * Longest wait for one HTTP answer from a service under test: on a starved 2-core
	 * machine a plain request has taken longer than half a minute.
	 */
	public static Duration httpTimeout() {
		return seconds("HARNESS_HTTP_TIMEOUT_SECONDS", 120);
	}

	/**
	 * Longest wait for a service process to become ready: two JVMs beside three brokers
	 * start slowly.
	 */
	public static Duration serviceStartTimeout() {
		return seconds("HARNESS_SERVICE_START_TIMEOUT_SECONDS", 900);
	}

	/**
	 * Longest wait for {@code local/infra.sh}: kafka-start waits for a fully replicated
	 * cluster.
	 */
	public static Duration infraTimeout() {
		return seconds("HARNESS_INFRA_TIMEOUT_SECONDS", 900);
	}

	/**
	 * The repository root ({@code COUPON_REPO_ROOT}, else two levels above the module).
	 */
	public static Path repoRoot() {
		return Path.of(env("COUPON_REPO_ROOT", "../..")).toAbsolutePath().normalize();
	}

	/**
	 * Runs {@code local/infra.sh <command> [arguments]} with the caller's
	 * PORT_OFFSET/RUN_DIR (inherited env).
	 */
	public static void infra(String command, String... arguments) throws IOException, InterruptedException {
		List<String> line = new ArrayList<>(List.of(repoRoot().resolve("local/infra.sh").toString(), command));
		line.addAll(List.of(arguments));
		Process process = new ProcessBuilder(line).directory(repoRoot().toFile()).inheritIO().start();
		if (!process.waitFor(infraTimeout().toSeconds(), TimeUnit.SECONDS) || process.exitValue() != 0) {
			throw new IllegalStateException(
					"local/infra.sh " + String.join(" ", line.subList(1, line.size())) + " failed");
		}
	}

	/**
	 * Runs {@code local/infra.sh <command> [arguments]} (a read such as {@code pid} or
	 * {@code redis-master-of}) and returns what it printed.
	 */
	public static String infraOutput(String command, String... arguments) throws IOException, InterruptedException {
		List<String> line = new ArrayList<>(List.of(repoRoot().resolve("local/infra.sh").toString(), command));
		line.addAll(List.of(arguments));
		Process process = new ProcessBuilder(line).directory(repoRoot().toFile())
			.redirectError(ProcessBuilder.Redirect.INHERIT)
			.start();
		String output = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
		if (!process.waitFor(infraTimeout().toSeconds(), TimeUnit.SECONDS) || process.exitValue() != 0) {
			throw new IllegalStateException(
					"local/infra.sh " + String.join(" ", line.subList(1, line.size())) + " failed");
		}
		return output.trim();
	}

	private static Duration seconds(String name, long fallback) {
		return Duration.ofSeconds(Long.parseLong(env(name, Long.toString(fallback))));
	}

	private static String env(String name, String fallback) {
		String value = System.getenv(name);
		return (value == null || value.isBlank()) ? fallback : value;
	}

}
