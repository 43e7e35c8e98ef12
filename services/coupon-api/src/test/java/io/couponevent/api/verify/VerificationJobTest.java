package io.couponevent.api.verify;

import java.time.Instant;
import java.util.UUID;

import javax.sql.DataSource;

import io.couponevent.api.CouponApiApplication;
import io.couponevent.api.coupon.CouponRepository;
import io.couponevent.api.issuance.Decision;
import io.couponevent.api.issuance.ReservationStore;
import io.couponevent.api.window.DeclaredWindow;
import io.couponevent.testsupport.Harness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code --coupon.job=verify} against the real harness, without a TestRun or a ConfigMap
 * (the cluster test covers those): a coupon whose every reservation has its row passes
 * and exits 0; one more reservation without a row fails and exits
 * {@value VerificationJob#FAILED}, the code the chart's pod failure policy fails the Job
 * on.
 */
class VerificationJobTest {

	private static LettuceConnectionFactory factory;

	private static ReservationStore store;

	private static JdbcTemplate jdbc;

	@BeforeAll
	static void connect() {
		factory = new LettuceConnectionFactory(new RedisClusterConfiguration(Harness.redisNodes()));
		factory.afterPropertiesSet();
		factory.start();
		store = new ReservationStore(new StringRedisTemplate(factory));
		DataSource db = new DriverManagerDataSource(Harness.dbUrl(), Harness.dbUser(), Harness.dbPassword());
		jdbc = new JdbcTemplate(db);
		// The schema, as the chart's migrate hook makes it.
		assertThat(SpringApplication
			.exit(new SpringApplicationBuilder(CouponApiApplication.class).web(WebApplicationType.NONE)
				.run("--coupon.job=migrate", "--coupon.catalog.register-on-start=false")))
			.isZero();
	}

	@AfterAll
	static void disconnect() {
		factory.destroy();
	}

	/** Reserves in Redis through the issue script and, when persisted, writes the row. */
	private static void issue(long coupon, String user, boolean persisted) {
		Decision d = store.reserve(coupon, user);
		assertThat(d.outcome()).isEqualTo(Decision.Outcome.ACCEPTED);
		if (persisted) {
			jdbc.update(
					"INSERT INTO issued_coupons (coupon_id, user_id, slot, event_id, reserved_at) "
							+ "VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP(3))",
					coupon, user, d.slot(), UUID.randomUUID().toString());
		}
	}

	/** The verify job's exit code for the coupon, judged once (no settling). */
	private static int verify(long coupon) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(CouponApiApplication.class)
			.web(WebApplicationType.NONE)
			.run("--coupon.job=verify", "--coupon.verify.coupon=" + coupon, "--coupon.verify.settle-timeout=0s",
					// A topic nobody writes: the group's lag on it is 0 (the harness's
					// own
					// topic holds the other tests' records, with no consumer running).
					"--coupon.kafka.topic=verify-test-" + coupon, "--coupon.catalog.register-on-start=false");
		return SpringApplication.exit(context);
	}

	@Test
	void passesWhenEveryReservationHasItsRowAndFailsWithExitCode3OnOneWithout() {
		long coupon = Harness.uniqueCouponId();
		Instant now = Instant.now();
		var saved = new CouponRepository(jdbc).upsert(coupon, "verify test", 3,
				new DeclaredWindow(now.minusSeconds(60), now.plusSeconds(600).toString()), (lowered) -> {
				});
		assertThat(store.upsertMeta(saved.coupon(), true)).isEqualTo(ReservationStore.MetaResult.CREATED);
		issue(coupon, "verify-a", true);
		issue(coupon, "verify-b", true);
		assertThat(verify(coupon)).as("two reservations, two rows").isZero();

		issue(coupon, "verify-c", false);
		assertThat(verify(coupon)).as("a reservation without its row").isEqualTo(VerificationJob.FAILED);
	}

}
