package io.couponevent.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

import io.couponevent.testsupport.Tokens;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Issuance traffic on virtual threads, with a bounded number of requests in flight. */
final class Traffic {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	/** Long enough for one spike of the whole test, however slow the machine. */
	private static final Duration TOKEN_VALIDITY = Duration.ofHours(1);

	private final HttpClient http = HttpClient.newBuilder()
		.connectTimeout(Duration.ofSeconds(5))
		.executor(Executors.newVirtualThreadPerTaskExecutor())
		.build();

	private final String base;

	Traffic(int apiPort) {
		this.base = "http://127.0.0.1:" + apiPort;
	}

	/**
	 * Outcome counts, the users that got a 202, and those whose answer was ambiguous: a
	 * 503 after a reservation (the send timed out but landed) or no answer at all (the
	 * server may have gone on), so such a user may hold a row.
	 */
	record Result(Map<Integer, Integer> byStatus, Set<String> accepted, Set<String> ambiguous) {
		int count(int status) {
			return byStatus.getOrDefault(status, 0);
		}
	}

	/**
	 * Sends one POST per entry of {@code users} (a user may appear several times:
	 * retries, some in parallel); {@code progress} is told how many requests completed so
	 * far.
	 */
	Result issue(long couponId, List<String> users, int concurrency, IntConsumer progress) throws InterruptedException {
		Map<Integer, Integer> byStatus = new ConcurrentHashMap<>();
		Set<String> accepted = ConcurrentHashMap.newKeySet();
		Set<String> ambiguous = ConcurrentHashMap.newKeySet();
		Map<String, String> tokens = new ConcurrentHashMap<>();
		Semaphore inFlight = new Semaphore(concurrency);
		AtomicInteger done = new AtomicInteger();
		try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
			for (String user : users) {
				inFlight.acquire();
				threads.submit(() -> {
					try {
						int status = post(couponId,
								tokens.computeIfAbsent(user, u -> Tokens.token(u, List.of(), TOKEN_VALIDITY)));
						byStatus.merge(status, 1, Integer::sum);
						if (status == 202) {
							accepted.add(user);
						}
						if (status == 503 || status == -1) {
							ambiguous.add(user);
						}
					}
					finally {
						inFlight.release();
						progress.accept(done.incrementAndGet());
					}
				});
			}
		}
		return new Result(byStatus, accepted, ambiguous);
	}

	private int post(long couponId, String token) {
		try {
			HttpRequest request = HttpRequest
				.newBuilder(URI.create(base + "/api/v1/coupons/" + couponId + "/issuances"))
				.header("Authorization", "Bearer " + token)
				.timeout(Duration.ofSeconds(30))
				.POST(HttpRequest.BodyPublishers.noBody())
				.build();
			return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
		}
		catch (Exception e) {
			return -1; // connection refused (e.g. the API was killed on purpose)
		}
	}

	int createCoupon(long couponId, int quantity) throws Exception {
		Instant now = Instant.now();
		String body = "{\"name\":\"it " + couponId + "\",\"quantity\":" + quantity + ",\"opensAt\":\""
				+ now.minusSeconds(60) + "\",\"closesAt\":\"" + now.plusSeconds(3600) + "\"}";
		HttpRequest request = HttpRequest.newBuilder(URI.create(base + "/api/v1/admin/coupons/" + couponId))
			.header("Authorization", "Bearer " + Tokens.token("it-admin", List.of("admin"), TOKEN_VALIDITY))
			.header("Content-Type", "application/json")
			.PUT(HttpRequest.BodyPublishers.ofString(body))
			.build();
		return http.send(request, HttpResponse.BodyHandlers.ofString()).statusCode();
	}

	JsonNode reconciliation(long couponId) throws Exception {
		HttpRequest request = HttpRequest
			.newBuilder(URI.create(base + "/api/v1/admin/coupons/" + couponId + "/reconciliation"))
			.header("Authorization", "Bearer " + Tokens.token("it-admin", List.of("admin"), TOKEN_VALIDITY))
			.build();
		HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
		if (r.statusCode() != 200) {
			throw new IllegalStateException(r.statusCode() + " " + r.body());
		}
		return JSON.readTree(r.body());
	}

}
