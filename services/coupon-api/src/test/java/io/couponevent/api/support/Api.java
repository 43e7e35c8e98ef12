package io.couponevent.api.support;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import io.couponevent.testsupport.Harness;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A small HTTP client for the API under test (real sockets, real security filters). */
public final class Api {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	/**
	 * The server runs in the test's own JVM beside three brokers: see
	 * {@link Harness#httpTimeout()}.
	 */
	private static final Duration TIMEOUT = Harness.httpTimeout();

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private final String base;

	public Api(int port) {
		this.base = "http://127.0.0.1:" + port;
	}

	public record Reply(int status, String contentType, String retryAfter, String location, JsonNode body, String raw) {

		public String code() {
			return body == null || body.get("code") == null ? null : body.get("code").asString();
		}
	}

	public Reply call(String method, String path, String token, String contentType, String body) {
		return call(method, path, token, contentType,
				body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
	}

	/**
	 * Any body publisher ({@code ofInputStream} sends a chunked body) and extra headers
	 * as name, value pairs.
	 */
	public Reply call(String method, String path, String token, String contentType, HttpRequest.BodyPublisher body,
			String... headers) {
		HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(TIMEOUT);
		if (token != null) {
			b.header("Authorization", "Bearer " + token);
		}
		if (contentType != null) {
			b.header("Content-Type", contentType);
		}
		for (int i = 0; i + 1 < headers.length; i += 2) {
			b.header(headers[i], headers[i + 1]);
		}
		b.method(method, body);
		try {
			HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
			JsonNode json = null;
			try {
				json = r.body().isBlank() ? null : JSON.readTree(r.body());
			}
			catch (RuntimeException notJson) {
				// left null: the assertion on the content type tells what came back
			}
			return new Reply(r.statusCode(), r.headers().firstValue("Content-Type").orElse(""),
					r.headers().firstValue("Retry-After").orElse(null), r.headers().firstValue("Location").orElse(null),
					json, r.body());
		}
		catch (java.io.IOException e) {
			throw new java.io.UncheckedIOException(e);
		}
		catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(e);
		}
	}

	public Reply issue(long couponId, String token) {
		return call("POST", "/api/v1/coupons/" + couponId + "/issuances", token, null, null);
	}

	public Reply issue(long couponId, String token, String entryToken) {
		return call("POST", "/api/v1/coupons/" + couponId + "/issuances", token, null,
				HttpRequest.BodyPublishers.noBody(), "Coupon-Entry-Token", entryToken);
	}

	public Reply putCoupon(long couponId, String token, String name, int quantity, java.time.Instant opensAt,
			java.time.Instant closesAt) {
		String body = "{\"name\":\"" + name + "\",\"quantity\":" + quantity + ",\"opensAt\":\"" + opensAt
				+ "\",\"closesAt\":\"" + closesAt + "\"}";
		return call("PUT", "/api/v1/admin/coupons/" + couponId, token, "application/json", body);
	}

	public String get(String path) {
		return call("GET", path, null, null, null).raw();
	}

}
