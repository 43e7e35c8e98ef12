package io.couponevent.api.web;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import io.couponevent.api.support.Api.Reply;
import io.couponevent.api.support.ApiServerTest;
import io.couponevent.common.entry.EntryGate;
import io.couponevent.testsupport.Harness;
import io.couponevent.testsupport.Tokens;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The waiting room's gate as the issuance API enforces it: while the gate key exists only
 * a request with an entry token for that user and coupon may reserve.
 */
class EntryGateApiTest extends ApiServerTest {

	@Autowired
	StringRedisTemplate redis;

	private EntryGate gate;

	@BeforeEach
	void entryGate() {
		gate = new EntryGate(env.getRequiredProperty("coupon.entry.secret"));
	}

	private long openCoupon() {
		long id = Harness.uniqueCouponId();
		Instant now = Instant.now();
		Reply created = api.putCoupon(id, Tokens.admin("ops"), "gated", 10, now.minusSeconds(60),
				now.plusSeconds(3600));
		assertThat(created.status()).as(created.raw()).isEqualTo(201);
		return id;
	}

	@Test
	void whileTheGateIsOnOnlyAnEntryTokenForThatUserAndCouponReserves() {
		long id = openCoupon();
		long other = openCoupon();
		redis.opsForValue().set(EntryGate.key(id), "1", Duration.ofSeconds(60));
		String user = "gated-" + UUID.randomUUID();
		Instant later = Instant.now().plusSeconds(60);
		EntryGate forger = new EntryGate("not-the-entry-secret-0123456789abcdef");
		for (String refused : new String[] { null, "garbage", forger.issue(user, id, later),
				gate.issue(user, id, Instant.now().minusSeconds(1)), gate.issue(user, other, later),
				gate.issue("someone-else", id, later) }) {
			Reply reply = refused == null ? api.issue(id, Tokens.user(user))
					: api.issue(id, Tokens.user(user), refused);
			assertThat(reply.status()).as(reply.raw()).isEqualTo(403);
			assertThat(reply.code()).isEqualTo("ENTRY_REQUIRED");
		}
		Reply admitted = api.issue(id, Tokens.user(user), gate.issue(user, id, later));
		assertThat(admitted.status()).as(admitted.raw()).isEqualTo(202);
		redis.delete(EntryGate.key(id));
	}

	@Test
	void withoutTheGateTheTokenIsIgnored() {
		long id = openCoupon();
		String user = "walk-in-" + UUID.randomUUID();
		Reply reply = api.issue(id, Tokens.user(user), "garbage");
		assertThat(reply.status()).as(reply.raw()).isEqualTo(202);
	}

}
