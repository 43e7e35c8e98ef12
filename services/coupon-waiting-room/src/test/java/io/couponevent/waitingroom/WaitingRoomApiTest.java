package io.couponevent.waitingroom;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.couponevent.common.entry.EntryGate;
import io.couponevent.testsupport.Eventually;
import io.couponevent.testsupport.Harness;
import io.couponevent.testsupport.RequiresHarness;
import io.couponevent.testsupport.Tokens;
import org.apache.catalina.connector.Connector;
import org.apache.coyote.AbstractProtocol;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.servlet.context.ServletWebServerApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The waiting room against the real Redis Cluster of the harness; the API's coupon view
 * is a stand-in HTTP server (a pure data source).
 */
@RequiresHarness
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class WaitingRoomApiTest {

	private static final String ENTRY_SECRET = "test-entry-secret-0123456789abcdef-0123";

	private static final long LEAVERS_COUPON = 9000000001L;

	private static final CouponApiStandIn API = CouponApiStandIn.start();

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	@Autowired
	Environment env;

	@Autowired
	StringRedisTemplate redis;

	@Autowired
	ServletWebServerApplicationContext context;

	/** A rebranded page's files, as the chart mounts them over the built-in ones. */
	private static final Path PAGE_DIR = pageDir();

	@DynamicPropertySource
	static void api(DynamicPropertyRegistry registry) {
		registry.add("coupon.waiting-room.api-url", API::url);
		registry.add("coupon.waiting-room.page-dir", PAGE_DIR::toString);
	}

	private static Path pageDir() {
		try {
			Path dir = Files.createTempDirectory("room-page");
			Files.writeString(dir.resolve("config.json"), "{\"title\": {\"en\": \"Rebranded\"}}");
			dir.toFile().deleteOnExit();
			dir.resolve("config.json").toFile().deleteOnExit();
			return dir;
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
	}

	record Reply(int status, JsonNode body) {

		String text(String field) {
			return this.body.get(field) == null || this.body.get(field).isNull() ? null
					: this.body.get(field).asString();
		}

		long number(String field) {
			return this.body.get(field).asLong();
		}

	}

	@BeforeEach
	void freshLeaversZone() {
		for (String suffix : List.of("q", "adm", "seen", "meta", "soldout", "closed", "eta")) {
			this.redis.delete("wr:{leavers}:" + suffix);
		}
	}

	@Test
	void everyConnectionGetsTheSmallBuffers() {
		var connector = connector();
		assertThat(String.valueOf(connector.getProperty("socket.appReadBufSize"))).isEqualTo("2048");
		assertThat(String.valueOf(connector.getProperty("socket.appWriteBufSize"))).isEqualTo("2048");
	}

	@Test
	void requestsInFlightBeyondTomcatsDefaultKeepTheirProcessors() {
		var protocol = (AbstractProtocol<?>) connector().getProtocolHandler();
		// Tomcat's default of 200 made and dropped a processor per request beyond it
		// (decision 0038)
		assertThat(protocol.getProcessorCache()).isEqualTo(2048);
	}

	@Test
	void aBurstUnderTheBudgetNeverQueues() throws Exception {
		long coupon = Harness.uniqueCouponId();
		for (int i = 0; i < 40; i++) {
			Reply r = join(coupon, "burst-" + i);
			assertThat(r.status()).isEqualTo(200);
			assertThat(r.text("state")).isEqualTo("ADMITTED");
			assertThat(r.text("entryToken")).isNotBlank();
		}
		Reply zone = admin("GET", "coupon-" + coupon, null);
		assertThat(zone.body().get("active").asBoolean()).isFalse();
		assertThat(this.redis.hasKey(EntryGate.key(coupon))).isFalse();
	}

	@Test
	void arrivalsBeyondTheBudgetQueueAndAreAdmittedInOrderOneSubWindowAtATime() throws Exception {
		long coupon = Harness.uniqueCouponId();
		String zone = "coupon-" + coupon;
		// 120 a minute in 1 s steps: 2 users a step once a queue exists
		for (int i = 0; i < 120; i++) {
			assertThat(join(coupon, "early-" + i).text("state")).isEqualTo("ADMITTED");
		}
		List<String> users = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			String user = "late-" + i;
			users.add(user);
			Reply r = join(coupon, user);
			assertThat(r.text("state")).isEqualTo("QUEUED");
			// At the tail; on a slow host an admission step (1 s here) may pass between
			// two joins and move the queue up, so the place is at most i + 1.
			assertThat(r.number("position")).isBetween(1L, i + 1L);
			assertThat(r.number("etaSeconds")).isNotNegative();
			assertThat(r.number("pollAfterMs")).isPositive();
		}
		assertThat(admin("GET", zone, null).body().get("active").asBoolean()).isTrue();
		assertThat(Eventually.await(Duration.ofSeconds(10), () -> this.redis.hasKey(EntryGate.key(coupon)),
				Boolean.TRUE::equals))
			.isTrue();
		// a re-join never moves a user back
		Reply again = join(coupon, "late-0");
		assertThat(again.text("state")).isIn("QUEUED", "ADMITTED");

		Map<String, Long> admittedAt = new HashMap<>();
		Instant deadline = Instant.now().plusSeconds(60);
		while (admittedAt.size() < users.size() && Instant.now().isBefore(deadline)) {
			for (String user : users) {
				if (!admittedAt.containsKey(user)) {
					Reply r = poll(coupon, user);
					assertThat(r.status()).isEqualTo(200);
					if ("ADMITTED".equals(r.text("state"))) {
						admittedAt.put(user, Instant.parse(r.text("admittedAt")).toEpochMilli());
					}
				}
			}
			Thread.sleep(200);
		}
		assertThat(admittedAt).hasSize(users.size());
		for (int i = 1; i < users.size(); i++) {
			assertThat(admittedAt.get(users.get(i))).as("admission order of " + users.get(i))
				.isGreaterThanOrEqualTo(admittedAt.get(users.get(i - 1)));
		}
		// at most two steps' quota (4) at any instant, and 8 users need at least 3 steps
		Map<Long, Integer> perInstant = new HashMap<>();
		admittedAt.values().forEach((t) -> perInstant.merge(t, 1, Integer::sum));
		assertThat(perInstant.values()).allMatch((n) -> n <= 4);
		long span = admittedAt.get(users.get(7)) - admittedAt.get(users.get(0));
		assertThat(span).isGreaterThanOrEqualTo(1500);

		// drained: the queue switches off and the gate opens
		assertThat(Eventually
			.await(Duration.ofSeconds(10), () -> admin("GET", zone, null), (r) -> !r.body().get("active").asBoolean())
			.body()
			.get("active")
			.asBoolean()).isFalse();
		assertThat(Eventually.await(Duration.ofSeconds(10), () -> this.redis.hasKey(EntryGate.key(coupon)),
				Boolean.FALSE::equals))
			.isFalse();
	}

	@Test
	void modeOnQueuesEveryoneAndRejoinKeepsThePlace() throws Exception {
		long coupon = Harness.uniqueCouponId();
		String zone = "coupon-" + coupon;
		assertThat(admin("PUT", zone, "{\"mode\":\"on\",\"paused\":true}").status()).isEqualTo(200);
		assertThat(join(coupon, "first").number("position")).isEqualTo(1);
		assertThat(join(coupon, "second").number("position")).isEqualTo(2);
		assertThat(join(coupon, "third").number("position")).isEqualTo(3);
		Reply rejoin = join(coupon, "second");
		assertThat(rejoin.text("state")).isEqualTo("PAUSED");
		assertThat(rejoin.number("position")).isEqualTo(2);
		Reply off = admin("PUT", zone, "{\"mode\":\"off\"}");
		assertThat(off.text("mode")).isEqualTo("off");
		assertThat(join(coupon, "fourth").text("state")).isEqualTo("ADMITTED");
	}

	@Test
	void pauseHoldsTheQueue() throws Exception {
		long coupon = Harness.uniqueCouponId();
		String zone = "coupon-" + coupon;
		admin("PUT", zone, "{\"mode\":\"on\",\"paused\":true}");
		Reply r = join(coupon, "patient");
		assertThat(r.text("state")).isEqualTo("PAUSED");
		Thread.sleep(2500);
		assertThat(poll(coupon, "patient").text("state")).isEqualTo("PAUSED");
		admin("PUT", zone, "{\"paused\":false}");
		assertThat(Eventually
			.await(Duration.ofSeconds(10), () -> poll(coupon, "patient"), (p) -> "ADMITTED".equals(p.text("state")))
			.text("state")).isEqualTo("ADMITTED");
	}

	@Test
	void leaversArePurgedAndThoseBehindMoveUp() throws Exception {
		// Paused first: with 1 s sub-windows an admission step could otherwise pass
		// between two joins and let the first users in.
		admin("PUT", "leavers", "{\"paused\":true}");
		assertThat(join(LEAVERS_COUPON, "gone-1").number("position")).isEqualTo(1);
		assertThat(join(LEAVERS_COUPON, "gone-2").number("position")).isEqualTo(2);
		assertThat(join(LEAVERS_COUPON, "stays").number("position")).isEqualTo(3);
		Reply stays = Eventually.await(Duration.ofSeconds(20), () -> poll(LEAVERS_COUPON, "stays"),
				(r) -> r.number("position") == 1);
		assertThat(stays.number("position")).isEqualTo(1);
		Reply gone = poll(LEAVERS_COUPON, "gone-1");
		assertThat(gone.status()).isEqualTo(404);
		assertThat(gone.text("code")).isEqualTo("NOT_IN_QUEUE");
		assertThat(join(LEAVERS_COUPON, "gone-1").number("position")).isEqualTo(2);
	}

	@Test
	void theSweeperPurgesMoreLeaversThanOneLuaUnpackTakes() throws Exception {
		admin("PUT", "leavers", "{\"paused\":true}");
		long longAgo = System.currentTimeMillis() - 60_000;
		java.util.Set<org.springframework.data.redis.core.ZSetOperations.TypedTuple<String>> users = new java.util.HashSet<>();
		for (int i = 0; i < 9000; i++) {
			users
				.add(org.springframework.data.redis.core.ZSetOperations.TypedTuple.of("silent-" + i, (double) longAgo));
		}
		this.redis.opsForZSet().add("wr:{leavers}:q", users);
		this.redis.opsForZSet().add("wr:{leavers}:seen", users);
		assertThat(Eventually.await(Duration.ofSeconds(30), () -> this.redis.opsForZSet().zCard("wr:{leavers}:q"),
				(n) -> n == 0))
			.isZero();
		assertThat(this.redis.opsForZSet().zCard("wr:{leavers}:seen")).isZero();
	}

	@Test
	void soldOutReachesEveryWaitingUserAndQueuesNobodyNew() throws Exception {
		long coupon = Harness.uniqueCouponId();
		String zone = "coupon-" + coupon;
		admin("PUT", zone, "{\"mode\":\"on\",\"paused\":true}");
		List<String> users = List.of("w1", "w2", "w3", "w4", "w5");
		for (String user : users) {
			assertThat(join(coupon, user).text("state")).isEqualTo("PAUSED");
		}
		API.state(coupon, "SOLD_OUT");
		for (String user : users) {
			assertThat(Eventually
				.await(Duration.ofSeconds(10), () -> poll(coupon, user), (r) -> "SOLD_OUT".equals(r.text("state")))
				.text("state")).isEqualTo("SOLD_OUT");
		}
		Reply late = join(coupon, "late");
		assertThat(late.text("state")).isEqualTo("SOLD_OUT");
		assertThat(poll(coupon, "late").status()).isEqualTo(200);
		assertThat(prometheus()).contains(
				"coupon_waiting_room_sold_out_total{application=\"coupon-waiting-room\",zone=\"" + zone + "\"} 5.0");
	}

	/**
	 * Issue 37, item 9: the API's SOLD_OUT can be transient (held and stale units count
	 * as issued until they come back), CLOSED ends when an admin extends closesAt, and a
	 * coupon can be registered again: the room follows the coupon back to OPEN.
	 */
	@Test
	void aSellOutOrAClosingThatEndsLetsUsersInAgain() throws Exception {
		long coupon = Harness.uniqueCouponId();
		assertThat(join(coupon, "before").text("state")).isEqualTo("ADMITTED");
		for (String state : List.of("SOLD_OUT", "CLOSED")) {
			API.state(coupon, state);
			assertThat(Eventually
				.await(Duration.ofSeconds(20), () -> join(coupon, "during-" + state),
						(r) -> state.equals(r.text("state")))
				.text("state")).isEqualTo(state);
			API.state(coupon, "OPEN");
			assertThat(Eventually
				.await(Duration.ofSeconds(20), () -> join(coupon, "after-" + state),
						(r) -> "ADMITTED".equals(r.text("state")))
				.text("state")).as("after " + state).isEqualTo("ADMITTED");
		}
	}

	/**
	 * Issue 37, item 8: the gates are renewed on their own schedule. The coupon lookups
	 * block (up to 3 s each when the API is slow); when the renewal waited for them, six
	 * slow coupons made a round longer than the gate's 15 s TTL and the gates lapsed: the
	 * API then took issuances without an entry token.
	 */
	@Test
	void slowCouponLookupsDoNotLetTheGatesLapse() throws Exception {
		List<Long> coupons = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			long coupon = Harness.uniqueCouponId();
			coupons.add(coupon);
			admin("PUT", "coupon-" + coupon, "{\"mode\":\"on\",\"paused\":true}");
			assertThat(join(coupon, "waiting").text("state")).isEqualTo("PAUSED");
		}
		long watched = coupons.get(0);
		assertThat(Eventually.await(Duration.ofSeconds(10), () -> this.redis.hasKey(EntryGate.key(watched)),
				Boolean.TRUE::equals))
			.isTrue();
		try {
			coupons.forEach((coupon) -> API.slow(coupon, Duration.ofSeconds(4)));
			long last = Long.parseLong(this.redis.opsForValue().get(EntryGate.key(watched)));
			long lastChange = System.currentTimeMillis();
			long longestGap = 0;
			long end = System.currentTimeMillis() + 22_000;
			while (System.currentTimeMillis() < end) {
				String expiry = this.redis.opsForValue().get(EntryGate.key(watched));
				assertThat(expiry).as("the gate of coupon " + watched).isNotNull();
				long now = System.currentTimeMillis();
				if (Long.parseLong(expiry) != last) {
					last = Long.parseLong(expiry);
					lastChange = now;
				}
				longestGap = Math.max(longestGap, now - lastChange);
				Thread.sleep(250);
			}
			// renewed every second: a few seconds' margin for a starved machine
			assertThat(longestGap).as("longest time without a renewal (ms)").isLessThan(5_000);
		}
		finally {
			coupons.forEach(API::recovers);
		}
	}

	@Test
	void theEntryTokenAdmitsOnlyItsUserAndCouponUntilItExpires() throws Exception {
		long coupon = Harness.uniqueCouponId();
		Reply r = join(coupon, "holder");
		assertThat(r.text("state")).isEqualTo("ADMITTED");
		String token = r.text("entryToken");
		Instant expiresAt = Instant.parse(r.text("expiresAt"));
		EntryGate gate = new EntryGate(ENTRY_SECRET);
		Instant now = Instant.now();
		assertThat(gate.admits(token, "holder", coupon, now)).isTrue();
		assertThat(gate.admits(token, "someone-else", coupon, now)).isFalse();
		assertThat(gate.admits(token, "holder", coupon + 1, now)).isFalse();
		assertThat(gate.admits(token, "holder", coupon, expiresAt.plusSeconds(1))).isFalse();
		String forged = token.substring(0, token.lastIndexOf('.') + 1) + "AAAA"
				+ token.substring(token.lastIndexOf('.') + 5);
		assertThat(gate.admits(forged, "holder", coupon, now)).isFalse();
		assertThat(new EntryGate("another-secret-0123456789abcdef-0123456").admits(token, "holder", coupon, now))
			.isFalse();
		// a poll re-issues the same admission, not a longer one
		Reply again = poll(coupon, "holder");
		assertThat(again.text("expiresAt")).isEqualTo(r.text("expiresAt"));
	}

	@Test
	void thePreQueueOpensInShuffledOrder() throws Exception {
		long coupon = Harness.uniqueCouponId();
		API.scheduled(coupon, Instant.now().plusSeconds(3));
		for (int i = 0; i < 5; i++) {
			Reply r = join(coupon, "pre-" + i);
			assertThat(r.text("state")).isEqualTo("QUEUED");
			assertThat(r.number("etaSeconds")).isGreaterThanOrEqualTo(1);
		}
		Thread.sleep(1000);
		assertThat(poll(coupon, "pre-0").text("state")).isEqualTo("QUEUED");
		API.state(coupon, "OPEN");
		assertThat(Eventually
			.await(Duration.ofSeconds(15), () -> poll(coupon, "pre-4"), (p) -> "ADMITTED".equals(p.text("state")))
			.text("state")).isEqualTo("ADMITTED");
	}

	/**
	 * Issue 37, item 10: the API reports a paused coupon as PAUSED even before its
	 * opening; the room took any state but SCHEDULED for the opening and let the
	 * pre-queue in.
	 */
	@Test
	void pausingAScheduledCouponKeepsItsPreQueueClosed() throws Exception {
		long coupon = Harness.uniqueCouponId();
		String zone = "coupon-" + coupon;
		API.scheduled(coupon, Instant.now().plusSeconds(120));
		assertThat(join(coupon, "early").text("state")).isEqualTo("QUEUED");
		assertThat(admin("GET", zone, null).body().get("preQueueOpen").asBoolean()).isTrue();
		API.state(coupon, "PAUSED");
		Thread.sleep(3000);
		assertThat(admin("GET", zone, null).body().get("preQueueOpen").asBoolean()).as("pre-queue still on").isTrue();
		assertThat(poll(coupon, "early").text("state")).isEqualTo("QUEUED");
	}

	/**
	 * Issue 37, item 10: the opening shuffles only the users who queued before the
	 * opening; whoever joined after it (before the room noticed the opening) stays behind
	 * them, in arrival order.
	 */
	@Test
	void arrivalsAfterTheOpeningStayBehindTheShuffledPreQueue() throws Exception {
		long coupon = Harness.uniqueCouponId();
		String zone = "coupon-" + coupon;
		Instant opening = Instant.now().plusSeconds(3);
		API.scheduled(coupon, opening);
		List<String> early = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			early.add("pre-" + i);
			assertThat(join(coupon, "pre-" + i).text("state")).isEqualTo("QUEUED");
		}
		// admissions held, so that the places stay put
		admin("PUT", zone, "{\"paused\":true}");
		Thread.sleep(Math.max(0, Duration.between(Instant.now(), opening).toMillis()) + 200);
		// the API has opened, the room does not know yet: later joins still queue
		List<String> late = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			late.add("late-" + i);
			assertThat(join(coupon, "late-" + i).text("state")).isEqualTo("PAUSED");
		}
		API.state(coupon, "OPEN");
		awaitPreQueueOpened(zone);
		List<Long> earlyPlaces = new ArrayList<>();
		for (String user : early) {
			earlyPlaces.add(poll(coupon, user).number("position"));
		}
		assertThat(earlyPlaces).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L);
		for (int i = 0; i < late.size(); i++) {
			assertThat(poll(coupon, late.get(i)).number("position")).as(late.get(i)).isEqualTo(6L + i);
		}
	}

	/**
	 * Issue 37, item 10: one pod opens a zone; another that finds the opening under way
	 * (the claim in the zone's hash) does not shuffle the queue again, unless the claim
	 * is older than the longest opening (its pod died).
	 */
	@Test
	void onlyOnePodShufflesAtTheOpening() throws Exception {
		long coupon = Harness.uniqueCouponId();
		String zone = "coupon-" + coupon;
		API.scheduled(coupon, Instant.now().plusSeconds(120));
		for (int i = 0; i < 10; i++) {
			assertThat(join(coupon, "pre-" + i).text("state")).isEqualTo("QUEUED");
		}
		admin("PUT", zone, "{\"paused\":true}");
		String meta = "wr:{" + zone + "}:meta";
		String queue = "wr:{" + zone + "}:q";
		// another pod is shuffling: its claim, made now by Redis's clock
		this.redis.opsForHash().put(meta, "opening", Long.toString(redisMillis()));
		Set<ZSetOperations.TypedTuple<String>> before = this.redis.opsForZSet().rangeWithScores(queue, 0, -1);
		API.state(coupon, "OPEN");
		Thread.sleep(3000);
		assertThat(this.redis.opsForZSet().rangeWithScores(queue, 0, -1)).as("the queue, untouched")
			.containsExactlyElementsOf(before);
		assertThat(admin("GET", zone, null).body().get("preQueueOpen").asBoolean()).isTrue();
		// that pod died mid-opening: its claim lapses and this pod opens the zone
		this.redis.opsForHash().put(meta, "opening", Long.toString(redisMillis() - 120_000));
		awaitPreQueueOpened(zone);
	}

	private void awaitPreQueueOpened(String zone) throws InterruptedException {
		assertThat(Eventually
			.await(Duration.ofSeconds(15), () -> admin("GET", zone, null),
					(r) -> !r.body().get("preQueueOpen").asBoolean())
			.body()
			.get("preQueueOpen")
			.asBoolean()).as("the pre-queue of " + zone + " opened").isFalse();
	}

	private long redisMillis() {
		return this.redis.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
	}

	@Test
	void badInputIsAProblemNeverAServerError() throws Exception {
		Reply bad = call("POST", "/api/v1/waiting-room/coupons/abc/entries", Tokens.user("u"), null);
		assertThat(bad.status()).isEqualTo(400);
		assertThat(bad.text("code")).isEqualTo("INVALID_REQUEST");
		assertThat(call("POST", "/api/v1/waiting-room/coupons/-5/entries", Tokens.user("u"), null).status())
			.isEqualTo(400);
		assertThat(call("POST", "/api/v1/waiting-room/coupons/99999999999999999999/entries", Tokens.user("u"), null)
			.status()).isEqualTo(400);
		Reply anonymous = call("POST", "/api/v1/waiting-room/coupons/1/entries", null, null);
		assertThat(anonymous.status()).isEqualTo(401);
		assertThat(anonymous.text("code")).isEqualTo("UNAUTHENTICATED");
		assertThat(call("POST", "/api/v1/waiting-room/coupons/1/entries", Tokens.forged("u"), null).status())
			.isEqualTo(401);
		assertThat(call("POST", "/api/v1/waiting-room/coupons/1/entries", Tokens.expired("u"), null).status())
			.isEqualTo(401);
		// the user id rule of the API: a padded subject would be another user in Redis
		assertThat(call("POST", "/api/v1/waiting-room/coupons/1/entries", Tokens.user(" padded"), null).status())
			.isEqualTo(401);
		assertThat(call("GET", "/api/v1/waiting-room/coupons/1/entries/me", Tokens.user("x".repeat(65)), null).status())
			.isEqualTo(401);
		long coupon = Harness.uniqueCouponId();
		Reply notJoined = poll(coupon, "stranger");
		assertThat(notJoined.status()).isEqualTo(404);
		assertThat(notJoined.text("code")).isEqualTo("NOT_IN_QUEUE");
		long unknown = Harness.uniqueCouponId();
		API.unknown(unknown);
		assertThat(join(unknown, "u").text("code")).isEqualTo("COUPON_NOT_FOUND");
		assertThat(call("GET", "/api/v1/admin/waiting-room/zones/coupon-1", Tokens.user("u"), null).status())
			.isEqualTo(403);
		assertThat(admin("GET", "nope", null).status()).isEqualTo(404);
		assertThat(admin("PUT", "coupon-" + coupon, "{\"mode\":\"sometimes\"}").status()).isEqualTo(400);
		assertThat(admin("PUT", "coupon-" + coupon, "{\"budgetPerMinute\":0}").status()).isEqualTo(400);
		assertThat(admin("PUT", "coupon-" + coupon, "{not json").status()).isEqualTo(400);
		assertThat(admin("PUT", "coupon-" + coupon, "[1,2]").status()).isEqualTo(400);
	}

	/**
	 * Issue 37, item 7: join and poll for ids the API does not know are refused before a
	 * zone exists, so they leave no Redis key, no meter and no tick behind (a flood of
	 * ids once made the tick outlast the gate's TTL).
	 */
	@Test
	void anUnknownCouponMakesNoZoneNoKeyAndNoMeter() throws Exception {
		long joined = Harness.uniqueCouponId();
		long polled = Harness.uniqueCouponId();
		API.unknown(joined);
		API.unknown(polled);
		Reply join = join(joined, "flooder");
		assertThat(join.status()).isEqualTo(404);
		assertThat(join.text("code")).isEqualTo("COUPON_NOT_FOUND");
		Reply poll = poll(polled, "flooder");
		assertThat(poll.status()).isEqualTo(404);
		assertThat(poll.text("code")).isEqualTo("COUPON_NOT_FOUND");
		assertThat(admin("GET", "coupon-" + polled, null).status()).isEqualTo(404);
		// the ticker runs every second: a zone it knew would have written its hash by now
		Thread.sleep(2500);
		for (long coupon : List.of(joined, polled)) {
			for (String suffix : List.of("q", "adm", "seen", "meta", "soldout", "closed", "eta")) {
				assertThat(this.redis.hasKey("wr:{coupon-" + coupon + "}:" + suffix)).as(coupon + ":" + suffix)
					.isFalse();
			}
			assertThat(prometheus()).doesNotContain("zone=\"coupon-" + coupon + "\"");
		}
	}

	/**
	 * A coupon the API cannot answer for is not taken on trust (a zone for any id while
	 * the API is down): 503 until the API confirms it.
	 */
	@Test
	void aCouponTheApiCannotConfirmWaitsForTheApi() throws Exception {
		long coupon = Harness.uniqueCouponId();
		API.fails(coupon);
		Reply refused = join(coupon, "early");
		assertThat(refused.status()).isEqualTo(503);
		assertThat(refused.text("code")).isEqualTo("UNAVAILABLE");
		assertThat(this.redis.hasKey("wr:{coupon-" + coupon + "}:meta")).isFalse();
		API.recovers(coupon);
		assertThat(join(coupon, "early").text("state")).isEqualTo("ADMITTED");
	}

	/**
	 * Issue 37, item 11: the API's defences against request shapes it never reads, on the
	 * room too: 415 for wildcard, form and multipart types, a body limit on the admin
	 * PUT, two Authorization headers refused, and a stalled client dropped after 20 s
	 * (while an idle keep-alive connection stays 60 s).
	 */
	@Test
	void requestShapesTheRoomNeverReadsAreRefused() throws Exception {
		long coupon = Harness.uniqueCouponId();
		String entries = "/api/v1/waiting-room/coupons/" + coupon + "/entries";
		for (String type : List.of("*/*", "application/*", "multipart/form-data", "multipart/form-data; boundary=x",
				"application/x-www-form-urlencoded", ";;;")) {
			HttpResponse<String> join = send(request(entries, Tokens.user("shape")).header("Content-Type", type)
				.POST(HttpRequest.BodyPublishers.ofString("a=b")));
			assertThat(join.statusCode()).as(type).isEqualTo(415);
			assertThat(join.headers().firstValue("Content-Type")).get().asString().contains("problem+json");
			HttpResponse<String> bare = send(request(entries, Tokens.user("shape")).header("Content-Type", type)
				.POST(HttpRequest.BodyPublishers.noBody()));
			assertThat(bare.statusCode()).as(type + " without a body").isEqualTo(415);
		}
		String admin = "/api/v1/admin/waiting-room/zones/coupon-" + coupon;
		String huge = "{\"mode\":\"on\",\"pad\":\"" + "x".repeat(1_000_000) + "\"}";
		assertThat(send(request(admin, Tokens.admin("ops")).header("Content-Type", "application/json")
			.PUT(HttpRequest.BodyPublishers.ofString(huge))).statusCode()).isEqualTo(413);
		HttpResponse<String> chunked = send(
				request(admin, Tokens.admin("ops")).header("Content-Type", "application/json")
					.PUT(HttpRequest.BodyPublishers
						.ofInputStream(() -> new java.io.ByteArrayInputStream(huge.getBytes(StandardCharsets.UTF_8)))));
		assertThat(chunked.statusCode()).isBetween(400, 499);
		assertThat(admin("GET", "coupon-" + coupon, null).text("mode")).isEqualTo("auto");
		HttpResponse<String> twice = send(
				request(entries, Tokens.user("first")).header("Authorization", "Bearer " + Tokens.user("second"))
					.POST(HttpRequest.BodyPublishers.noBody()));
		assertThat(twice.statusCode()).isEqualTo(400);
		assertThat(poll(coupon, "first").status()).isEqualTo(404);
		assertThat(poll(coupon, "second").status()).isEqualTo(404);
		var protocol = (AbstractProtocol<?>) connector().getProtocolHandler();
		assertThat(protocol.getConnectionTimeout()).isEqualTo(20_000);
		// an idle connection stays as long as the proxy in front keeps it (decision 0039)
		assertThat(protocol.getKeepAliveTimeout()).isEqualTo(60_000);
	}

	private HttpRequest.Builder request(String path, String token) {
		String port = this.env.getProperty("local.server.port");
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Harness.httpTimeout())
			.header("Authorization", "Bearer " + token);
	}

	private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	/**
	 * Join and poll are answered ahead of Spring Security and MVC (EntryEndpoint); a
	 * query string sends the same request through the controller: both answer alike.
	 */
	@Test
	void theLeanPathAnswersAsTheControllerDoes() throws Exception {
		long coupon = Harness.uniqueCouponId();
		String entries = "/api/v1/waiting-room/coupons/" + coupon + "/entries";
		Reply lean = join(coupon, "lean");
		Reply mvc = call("POST", entries + "?via=controller", Tokens.user("lean"), null);
		assertThat(lean.status()).isEqualTo(200);
		assertThat(lean.text("state")).isEqualTo("ADMITTED");
		assertThat(mvc.body()).isEqualTo(lean.body());
		assertThat(call("GET", entries + "/me?via=controller", Tokens.user("lean"), null).body())
			.isEqualTo(poll(coupon, "lean").body());
		Reply none = call("GET", entries + "/me?via=controller", Tokens.user("nobody"), null);
		Reply leanNone = poll(coupon, "nobody");
		assertThat(leanNone.status()).isEqualTo(none.status()).isEqualTo(404);
		assertThat(leanNone.body()).isEqualTo(none.body());
		String port = this.env.getProperty("local.server.port");
		HttpResponse<String> anonymous = this.http
			.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + entries))
				.POST(HttpRequest.BodyPublishers.noBody())
				.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(anonymous.statusCode()).isEqualTo(401);
		assertThat(anonymous.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
		assertThat(anonymous.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
		assertThat(anonymous.headers().firstValue("Cache-Control")).get().asString().contains("no-store");
		assertThat(prometheus()).contains("uri=\"/api/v1/waiting-room/coupons/{couponId}/entries\"")
			.contains("uri=\"/api/v1/waiting-room/coupons/{couponId}/entries/me\"");
	}

	/**
	 * Kubernetes probes the room on its main port (issue 35): {@code /readyz} and
	 * {@code /livez} answer there without a token, as on the management port.
	 */
	@Test
	void probesAnswerOnTheMainPort() throws Exception {
		for (String path : List.of("/readyz", "/livez")) {
			HttpResponse<String> probe = get(path);
			assertThat(probe.statusCode()).as(path).isEqualTo(200);
			assertThat(probe.body()).as(path).contains("\"status\":\"UP\"");
		}
	}

	/**
	 * The waiting-room page: its files are public, a mounted directory overrides the
	 * built-in config.json, and every other path stays closed.
	 */
	@Test
	void thePageIsServedToAnyoneAndItsConfigCanBeMounted() throws Exception {
		HttpResponse<String> page = get("/");
		assertThat(page.statusCode()).isEqualTo(200);
		assertThat(page.headers().firstValue("Content-Type")).get().asString().startsWith("text/html");
		assertThat(page.body()).contains("page/app.js");
		for (String file : List.of("/index.html", "/page/app.js", "/page/page.css", "/page/texts.js",
				"/page/logo.svg")) {
			assertThat(get(file).statusCode()).as(file).isEqualTo(200);
		}
		HttpResponse<String> config = get("/config.json");
		assertThat(config.statusCode()).isEqualTo(200);
		assertThat(JSON.readTree(config.body()).get("title").get("en").asString()).isEqualTo("Rebranded");
		assertThat(get("/page/nothing.js").statusCode()).isEqualTo(404);
		assertThat(get("/api/v1/other").statusCode()).isEqualTo(401);
	}

	private HttpResponse<String> get(String path) throws Exception {
		String port = this.env.getProperty("local.server.port");
		return send(
				HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Harness.httpTimeout()));
	}

	private Connector connector() {
		return ((TomcatWebServer) this.context.getWebServer()).getTomcat().getConnector();
	}

	private Reply join(long coupon, String user) {
		return call("POST", "/api/v1/waiting-room/coupons/" + coupon + "/entries", Tokens.user(user), null);
	}

	private Reply poll(long coupon, String user) {
		return call("GET", "/api/v1/waiting-room/coupons/" + coupon + "/entries/me", Tokens.user(user), null);
	}

	private Reply admin(String method, String zone, String body) {
		return call(method, "/api/v1/admin/waiting-room/zones/" + zone, Tokens.admin("ops"), body);
	}

	private String prometheus() throws Exception {
		String port = this.env.getProperty("local.management.port");
		return this.http
			.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/prometheus")).build(),
					HttpResponse.BodyHandlers.ofString())
			.body();
	}

	private Reply call(String method, String path, String token, String body) {
		String port = this.env.getProperty("local.server.port");
		HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Harness.httpTimeout());
		if (token != null) {
			b.header("Authorization", "Bearer " + token);
		}
		if (body != null) {
			b.header("Content-Type", "application/json");
		}
		b.method(method,
				body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
		try {
			HttpResponse<String> r = this.http.send(b.build(), HttpResponse.BodyHandlers.ofString());
			return new Reply(r.statusCode(), r.body().isBlank() ? JSON.createObjectNode() : JSON.readTree(r.body()));
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
