package io.couponevent.it;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One service started as {@code java -jar} from its built jar, stopped (or killed) by the
 * test.
 */
final class ServiceProcess implements AutoCloseable {

	private final String name;

	private final Path jar;

	private final Map<String, String> env;

	private final int managementPort;

	private Process process;

	ServiceProcess(String name, String jarProperty, int managementPort, Map<String, String> env) {
		this.name = name;
		this.jar = Path.of(System.getProperty(jarProperty, "missing-" + jarProperty));
		this.managementPort = managementPort;
		this.env = env;
	}

	ServiceProcess start() throws IOException {
		if (!Files.isRegularFile(jar)) {
			throw new IllegalStateException(name + ": no jar at " + jar + " (run the build first)");
		}
		Path logs = Path.of(System.getProperty("it.logs", "target/it-logs"));
		Files.createDirectories(logs);
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		// A fixed heap and a metaspace threshold above what the services load: heap
		// growth and metaspace-triggered full collections are slow on a starved 2-core
		// box
		// (../../../../../../../../local/decisions/0010-c1-and-fixed-heaps-in-the-harness.md).
		ProcessBuilder pb = new ProcessBuilder(java, "-Xms1g", "-Xmx1g", "-XX:MetaspaceSize=256m", "-XX:+UseSerialGC",
				"-XX:TieredStopAtLevel=1", "-jar", extracted(java, logs.getParent()).toString());
		pb.environment().putAll(env);
		File log = logs.resolve(name + ".log").toFile();
		pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log));
		process = pb.start();
		// A test JVM stopped from outside (Ctrl-C, a CI timeout) skips @AfterAll: without
		// this the service would outlive it and hold its ports.
		Process started = process;
		Runtime.getRuntime().addShutdownHook(new Thread(started::destroyForcibly));
		return this;
	}

	/**
	 * The extracted layout ({@code -Djarmode=tools extract}), as the images and
	 * local/services.sh run it: the fat jar's nested-jar class loader serialises class
	 * loading on one lock per nested jar, and request threads queued behind it for
	 * minutes on a starved 2-core box.
	 */
	private Path extracted(String java, Path targetDir) throws IOException {
		Path dir = targetDir.resolve("it-app").resolve(name);
		Path launcher = dir.resolve(jar.getFileName());
		Path marker = dir.resolve(".extracted");
		if (Files.exists(marker) && Files.getLastModifiedTime(marker).compareTo(Files.getLastModifiedTime(jar)) >= 0) {
			return launcher;
		}
		Process extract = new ProcessBuilder(java, "-Djarmode=tools", "-jar", jar.toString(), "extract", "--force",
				"--destination", dir.toString())
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
		try {
			if (!extract.waitFor(5, TimeUnit.MINUTES) || extract.exitValue() != 0) {
				throw new IllegalStateException(name + ": extracting " + jar + " failed");
			}
		}
		catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(name + ": interrupted while extracting", e);
		}
		Files.writeString(marker, jar.toString());
		return launcher;
	}

	/** Waits until {@code /actuator/health/readiness} answers 200. */
	void awaitReady(Duration timeout) throws InterruptedException {
		HttpClient http = HttpClient.newHttpClient();
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() < deadline) {
			if (!process.isAlive()) {
				throw new IllegalStateException(name + " exited with " + process.exitValue() + ", see its log");
			}
			try {
				HttpResponse<String> r = http.send(HttpRequest
					.newBuilder(URI.create("http://127.0.0.1:" + managementPort + "/actuator/health/readiness"))
					.timeout(Duration.ofSeconds(2))
					.build(), HttpResponse.BodyHandlers.ofString());
				if (r.statusCode() == 200) {
					return;
				}
			}
			catch (IOException notYet) {
				// still starting
			}
			Thread.sleep(500);
		}
		throw new IllegalStateException(name + " not ready after " + timeout);
	}

	/**
	 * SIGKILL: no graceful shutdown, no compensation; the reconciler has to clean up
	 * after it.
	 */
	void kill() throws InterruptedException {
		process.destroyForcibly();
		process.waitFor(30, TimeUnit.SECONDS);
	}

	@Override
	public void close() throws InterruptedException {
		if (process != null && process.isAlive()) {
			process.destroy();
			if (!process.waitFor(40, TimeUnit.SECONDS)) {
				kill();
			}
		}
	}

}
