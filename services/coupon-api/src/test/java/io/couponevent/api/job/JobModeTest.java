package io.couponevent.api.job;

import io.couponevent.api.CouponApiApplication;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.security.web.SecurityFilterChain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The chart's hook jobs run the API image with {@code --coupon.job=...}, no web server
 * and no token key (their pods get no JWT variables). Nothing here touches the harness:
 * no coupon is declared and Flyway is off, so the job has nothing to write.
 */
class JobModeTest {

	private static final String[] NO_KEY_NO_MIGRATION = { "--spring.flyway.enabled=false",
			"--coupon.security.jwt.secret=", "--coupon.catalog.register-on-start=false" };

	private static ConfigurableApplicationContext job(String name) {
		String[] args = new String[NO_KEY_NO_MIGRATION.length + 1];
		args[0] = "--coupon.job=" + name;
		System.arraycopy(NO_KEY_NO_MIGRATION, 0, args, 1, NO_KEY_NO_MIGRATION.length);
		return new SpringApplicationBuilder(CouponApiApplication.class).web(WebApplicationType.NONE).run(args);
	}

	@Test
	void registerRunsWithoutWebServerOrTokenKeyAndExitsZero() {
		ConfigurableApplicationContext context = job("register");
		assertThat(context.getBeansOfType(SecurityFilterChain.class)).as("no HTTP surface in a job").isEmpty();
		assertThat(SpringApplication.exit(context)).isZero();
	}

	@Test
	void unknownJobFailsTheStart() {
		assertThatThrownBy(() -> job("nonsense")).hasStackTraceContaining("unknown coupon.job 'nonsense'");
	}

}
