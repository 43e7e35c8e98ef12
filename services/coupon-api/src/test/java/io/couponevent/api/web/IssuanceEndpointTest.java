package io.couponevent.api.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.couponevent.api.support.Api.Reply;
import io.couponevent.api.support.ApiServerTest;
import io.couponevent.testsupport.Harness;
import io.couponevent.testsupport.Tokens;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lean issuance endpoint answers exactly as the MVC controller behind Spring Security
 * does: the same request is sent without a body (the endpoint) and with an empty JSON
 * object (the controller), and the two answers must match, case by case.
 */
class IssuanceEndpointTest extends ApiServerTest {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static final List<String> HEADERS = List.of("content-type", "www-authenticate", "retry-after",
			"x-content-type-options", "x-frame-options", "cache-control", "pragma", "expires", "x-xss-protection");

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private record Answer(int status, Map<String, String> headers, JsonNode body) {
	}

	private Answer send(String path, String authorization, boolean withBody) throws Exception {
		HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + path))
			.timeout(Harness.httpTimeout());
		if (authorization != null) {
			b.header("Authorization", authorization);
		}
		if (withBody) {
			b.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{}"));
		}
		else {
			b.POST(HttpRequest.BodyPublishers.noBody());
		}
		HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
		Map<String, String> headers = new java.util.TreeMap<>();
		for (String name : HEADERS) {
			r.headers().firstValue(name).ifPresent(v -> headers.put(name, v));
		}
		return new Answer(r.statusCode(), headers, r.body().isBlank() ? null : JSON.readTree(r.body()));
	}

	private long coupon(int quantity, Instant opensAt) {
		long id = Harness.uniqueCouponId();
		Reply created = api.putCoupon(id, Tokens.admin("ops"), "lean", quantity, opensAt,
				Instant.now().plusSeconds(3600));
		assertThat(created.status()).as(created.raw()).isEqualTo(201);
		return id;
	}

	@Test
	void answersLikeTheController() throws Exception {
		long open = coupon(1, Instant.now().minusSeconds(60));
		long later = coupon(5, Instant.now().plusSeconds(600));
		String path = "/api/v1/coupons/%d/issuances";
		List<String[]> cases = new ArrayList<>();
		cases.add(new String[] { "no token", path.formatted(open), null });
		cases.add(new String[] { "not bearer", path.formatted(open), "Basic dXNlcjpwYXNz" });
		cases.add(new String[] { "malformed bearer", path.formatted(open), "Bearer a b" });
		cases.add(new String[] { "forged", path.formatted(open), "Bearer " + Tokens.forged("x") });
		cases.add(new String[] { "expired", path.formatted(open), "Bearer " + Tokens.expired("x") });
		cases.add(new String[] { "unknown coupon", path.formatted(Harness.uniqueCouponId()),
				"Bearer " + Tokens.user("u-" + UUID.randomUUID()) });
		cases
			.add(new String[] { "not open", path.formatted(later), "Bearer " + Tokens.user("u-" + UUID.randomUUID()) });
		for (String[] c : cases) {
			Answer lean = send(c[1], c[2], false);
			Answer controller = send(c[1], c[2], true);
			assertThat(lean.status()).as(c[0]).isBetween(400, 499).isEqualTo(controller.status());
			assertThat(lean.headers()).as(c[0]).isEqualTo(controller.headers());
			assertThat(lean.body()).as(c[0]).isEqualTo(controller.body());
		}
		// Accepted, then "already issued" for the same user, then sold out for another.
		String alice = "Bearer " + Tokens.user("alice-" + UUID.randomUUID());
		Answer accepted = send(path.formatted(open), alice, false);
		assertThat(accepted.status()).isEqualTo(202);
		assertThat(accepted.body().get("status").asString()).isEqualTo("PENDING");
		assertThat(accepted.body().get("statusUrl").asString()).isEqualTo("/api/v1/coupons/" + open + "/issuances/me");
		Answer again = send(path.formatted(open), alice, false);
		assertThat(again).isEqualTo(send(path.formatted(open), alice, true));
		assertThat(again.status()).isEqualTo(409);
		String bob = "Bearer " + Tokens.user("bob-" + UUID.randomUUID());
		Answer soldOut = send(path.formatted(open), bob, false);
		assertThat(soldOut).isEqualTo(send(path.formatted(open), bob, true));
		assertThat(soldOut.status()).isEqualTo(410);
	}

	@Test
	void acceptedAnswersMatchToo() throws Exception {
		long open = coupon(10, Instant.now().minusSeconds(60));
		String path = "/api/v1/coupons/" + open + "/issuances";
		Answer lean = send(path, "Bearer " + Tokens.user("lean-user"), false);
		Answer controller = send(path, "Bearer " + Tokens.user("mvc-user"), true);
		assertThat(lean.status()).isEqualTo(202).isEqualTo(controller.status());
		assertThat(lean.headers()).isEqualTo(controller.headers());
		assertThat(fieldNames(lean.body())).isEqualTo(fieldNames(controller.body()));
		assertThat(lean.body().get("userId").asString()).isEqualTo("lean-user");
	}

	private static List<String> fieldNames(JsonNode node) {
		List<String> names = new ArrayList<>();
		node.propertyNames().forEach(names::add);
		return names;
	}

}
