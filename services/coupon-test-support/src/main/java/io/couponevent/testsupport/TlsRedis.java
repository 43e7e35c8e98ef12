package io.couponevent.testsupport;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A one-node Redis Cluster that speaks only TLS, with a certificate signed by a private
 * CA made here (openssl): a client reaches it only when it trusts that CA. The node owns
 * every slot and announces its TLS port to the cluster ({@code tls-cluster yes}), so a
 * cluster client follows the same path as against the harness.
 */
public final class TlsRedis implements AutoCloseable {

	private static TlsRedis shared;

	private final Path dir;

	private final int port;

	private final Process server;

	private TlsRedis(Path dir, int port, Process server) {
		this.dir = dir;
		this.port = port;
		this.server = server;
	}

	/** One node for the whole test JVM, started at first use, stopped at its exit. */
	public static synchronized TlsRedis shared() throws IOException, InterruptedException {
		if (shared == null) {
			shared = start();
			Runtime.getRuntime().addShutdownHook(new Thread(shared::close));
		}
		return shared;
	}

	/**
	 * Makes the CA and the server's certificate, starts the node and gives it every slot.
	 */
	public static TlsRedis start() throws IOException, InterruptedException {
		Path dir = Files.createTempDirectory("tls-redis");
		run(dir, "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
				"/CN=coupon-test-ca", "-keyout", "ca.key", "-out", "ca.pem");
		run(dir, "openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", "server.key",
				"-out", "server.csr");
		Files.writeString(dir.resolve("san.cnf"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
		run(dir, "openssl", "x509", "-req", "-days", "1", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
				"-CAcreateserial", "-extfile", "san.cnf", "-out", "server.pem");
		int port = freePort();
		Process server = new ProcessBuilder("redis-server", "--port", "0", "--tls-port", Integer.toString(port),
				"--bind", "127.0.0.1", "--tls-cert-file", "server.pem", "--tls-key-file", "server.key",
				"--tls-ca-cert-file", "ca.pem", "--tls-auth-clients", "no", "--tls-cluster", "yes", "--cluster-enabled",
				"yes", "--cluster-config-file", "nodes.conf", "--dir", dir.toString(), "--save", "", "--appendonly",
				"no")
			.directory(dir.toFile())
			.redirectErrorStream(true)
			.redirectOutput(dir.resolve("redis.log").toFile())
			.start();
		TlsRedis redis = new TlsRedis(dir, port, server);
		try {
			redis.awaitReply(List.of("ping"), "PONG");
			redis.cli("cluster", "addslotsrange", "0", "16383");
			redis.awaitReply(List.of("cluster", "info"), "cluster_state:ok");
		}
		catch (IOException | RuntimeException e) {
			redis.close();
			throw e;
		}
		return redis;
	}

	/** {@code 127.0.0.1:<tls port>}, the only address it listens on. */
	public String node() {
		return "127.0.0.1:" + this.port;
	}

	/**
	 * Spring Boot's Redis properties for this node: the cluster, TLS through an SSL
	 * bundle trusting the CA (as the chart sets {@code SPRING_DATA_REDIS_SSL_BUNDLE}),
	 * and a 2 s connect timeout.
	 */
	public String[] bootProperties() {
		return new String[] { "spring.data.redis.cluster.nodes=" + node(), "spring.data.redis.timeout=5s",
				"spring.data.redis.connect-timeout=2s", "spring.data.redis.ssl.bundle=redis",
				"spring.ssl.bundle.pem.redis.truststore.certificate=file:" + caCertificate() };
	}

	/** The private CA's certificate (PEM), for a client's trust store. */
	public Path caCertificate() {
		return this.dir.resolve("ca.pem");
	}

	@Override
	public void close() {
		this.server.destroy();
		try {
			this.server.waitFor(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException e) {
			Thread.currentThread().interrupt();
		}
		this.server.destroyForcibly();
	}

	private void awaitReply(List<String> command, String expected) throws IOException, InterruptedException {
		String reply = Eventually.await(Duration.ofSeconds(30), () -> {
			try {
				return cli(command.toArray(String[]::new));
			}
			catch (IOException | IllegalStateException e) {
				return e.toString();
			}
			catch (InterruptedException e) {
				Thread.currentThread().interrupt();
				return e.toString();
			}
		}, (text) -> text.contains(expected));
		if (!reply.contains(expected)) {
			throw new IllegalStateException("TLS redis on " + node() + " did not answer " + expected + ": " + reply);
		}
	}

	private String cli(String... command) throws IOException, InterruptedException {
		List<String> line = new ArrayList<>(List.of("redis-cli", "--tls", "--cacert", caCertificate().toString(), "-h",
				"127.0.0.1", "-p", Integer.toString(this.port)));
		line.addAll(List.of(command));
		return run(this.dir, line.toArray(String[]::new));
	}

	private static String run(Path dir, String... command) throws IOException, InterruptedException {
		Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
			throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
		}
		return output;
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
