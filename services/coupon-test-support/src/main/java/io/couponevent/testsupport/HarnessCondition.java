package io.couponevent.testsupport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * {@link RequiresHarness}: enabled when the harness's Redis, Kafka and MariaDB accept a
 * connection at the addresses {@link Harness} gives; else disabled with the reason, or
 * failed when the harness is required ({@code REQUIRE_HARNESS=1}, or {@code CI=true}).
 */
final class HarnessCondition implements ExecutionCondition {

	private static final int CONNECT_TIMEOUT_MS = 2000;

	// One probe per test JVM: the harness does not come and go within a run.
	private static volatile String missing;

	@Override
	public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
		String absent = missing();
		if (absent.isEmpty()) {
			return ConditionEvaluationResult.enabled("the local harness answers");
		}
		String reason = "the local harness is not up (no answer from " + absent
				+ "): start it with local/infra.sh up (PORT_OFFSET=" + Harness.portOffset() + ")";
		if (required(System.getenv("REQUIRE_HARNESS"), System.getenv("CI"))) {
			throw new IllegalStateException(reason + "; REQUIRE_HARNESS=1 or CI=true makes that a failure");
		}
		return ConditionEvaluationResult.disabled(reason);
	}

	static boolean required(String requireHarness, String ci) {
		return "1".equals(requireHarness) || "true".equalsIgnoreCase(requireHarness) || "true".equalsIgnoreCase(ci);
	}

	private static String missing() {
		String result = missing;
		if (result == null) {
			List<String> absent = new ArrayList<>();
			endpoints().forEach((name, address) -> {
				if (!answers(address)) {
					absent.add(name + " " + address.getHostString() + ":" + address.getPort());
				}
			});
			result = String.join(", ", absent);
			missing = result;
		}
		return result;
	}

	/** One address of each server: a cluster that answers on none is not up. */
	static Map<String, InetSocketAddress> endpoints() {
		Map<String, InetSocketAddress> endpoints = new LinkedHashMap<>();
		endpoints.put("Redis", address(Harness.redisNodes().get(0)));
		endpoints.put("Kafka", address(Harness.kafkaBootstrap().split(",")[0].trim()));
		URI db = URI.create(Harness.dbUrl().substring("jdbc:".length()));
		endpoints.put("MariaDB", InetSocketAddress.createUnresolved(db.getHost(), db.getPort()));
		return endpoints;
	}

	private static InetSocketAddress address(String hostPort) {
		int colon = hostPort.lastIndexOf(':');
		return InetSocketAddress.createUnresolved(hostPort.substring(0, colon),
				Integer.parseInt(hostPort.substring(colon + 1)));
	}

	private static boolean answers(InetSocketAddress address) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(address.getHostString(), address.getPort()), CONNECT_TIMEOUT_MS);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
