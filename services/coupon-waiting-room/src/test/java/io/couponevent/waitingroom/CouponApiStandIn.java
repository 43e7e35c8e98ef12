package io.couponevent.waitingroom;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A stand-in for the API's public coupon view ({@code GET /api/v1/coupons/{id}}), a pure
 * data source: every coupon is OPEN unless a test sets another state; a coupon set to
 * {@code null} is unknown (404).
 */
public final class CouponApiStandIn {

	private final HttpServer server;

	private final Map<Long, String> states = new ConcurrentHashMap<>();

	private final Map<Long, Instant> opensAt = new ConcurrentHashMap<>();

	private final Map<Long, Boolean> unknown = new ConcurrentHashMap<>();

	private final Map<Long, Boolean> failing = new ConcurrentHashMap<>();

	private final Map<Long, Duration> slow = new ConcurrentHashMap<>();

	/** A stand-in listening on a free port, for a test class's static field. */
	public static CouponApiStandIn start() {
		try {
			return new CouponApiStandIn();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private CouponApiStandIn() throws IOException {
		this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		this.server.createContext("/api/v1/coupons/", this::answer);
		// a slow answer for one coupon holds no other
		this.server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
		this.server.start();
	}

	public String url() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort();
	}

	void state(long coupon, String state) {
		this.states.put(coupon, state);
	}

	void scheduled(long coupon, Instant opening) {
		this.opensAt.put(coupon, opening);
		this.states.put(coupon, "SCHEDULED");
	}

	void unknown(long coupon) {
		this.unknown.put(coupon, true);
	}

	/** The API fails (500) for this coupon until {@link #recovers}. */
	void fails(long coupon) {
		this.failing.put(coupon, true);
	}

	void recovers(long coupon) {
		this.failing.remove(coupon);
		this.slow.remove(coupon);
	}

	/**
	 * The API answers for this coupon only after {@code delay} until {@link #recovers}.
	 */
	void slow(long coupon, Duration delay) {
		this.slow.put(coupon, delay);
	}

	private void answer(HttpExchange exchange) throws IOException {
		String path = exchange.getRequestURI().getPath();
		long id = Long.parseLong(path.substring(path.lastIndexOf('/') + 1));
		Duration delay = this.slow.get(id);
		if (delay != null) {
			try {
				Thread.sleep(delay);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		byte[] body;
		int status;
		if (this.failing.containsKey(id)) {
			status = 500;
			body = "{\"code\":\"INTERNAL_ERROR\"}".getBytes(StandardCharsets.UTF_8);
		}
		else if (this.unknown.containsKey(id)) {
			status = 404;
			body = "{\"code\":\"COUPON_NOT_FOUND\"}".getBytes(StandardCharsets.UTF_8);
		}
		else {
			status = 200;
			String state = this.states.getOrDefault(id, "OPEN");
			Instant opens = this.opensAt.getOrDefault(id, Instant.now().minusSeconds(60));
			body = ("{\"id\":" + id + ",\"name\":\"c\",\"quantity\":100,\"remaining\":"
					+ ("SOLD_OUT".equals(state) ? 0 : 50) + ",\"opensAt\":\"" + opens + "\",\"closesAt\":\""
					+ Instant.now().plusSeconds(3600) + "\",\"state\":\"" + state + "\"}")
				.getBytes(StandardCharsets.UTF_8);
		}
		exchange.getResponseHeaders().set("Content-Type", "application/json");
		exchange.sendResponseHeaders(status, body.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(body);
		}
	}

}
