package io.couponevent.api;

import java.util.Arrays;
import java.util.stream.Stream;

import io.couponevent.common.entry.EntryProperties;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.ConfigurableApplicationContext;

@SpringBootApplication
// The entry gate's properties come from the contract module (coupon-common).
@ConfigurationPropertiesScan(basePackageClasses = { CouponApiApplication.class, EntryProperties.class })
public class CouponApiApplication {

	public static void main(String[] args) {
		SpringApplication app = new SpringApplication(CouponApiApplication.class);
		boolean job = Arrays.stream(args).anyMatch(a -> a.startsWith("--coupon.job="))
				|| System.getenv("COUPON_JOB") != null;
		if (!job) {
			app.run(args);
			return;
		}
		// Jobs (the migrate and register hooks, the verification after a load test)
		// run without a web server and end with an exit code.
		app.setWebApplicationType(WebApplicationType.NONE);
		// The migrate job exists to run Flyway, whatever spring.flyway.enabled says for
		// serving pods.
		String[] jobArgs = Arrays.asList(args).contains("--coupon.job=migrate")
				? Stream.concat(Arrays.stream(args), Stream.of("--spring.flyway.enabled=true")).toArray(String[]::new)
				: args;
		int code;
		try {
			ConfigurableApplicationContext context = app.run(jobArgs);
			code = SpringApplication.exit(context);
		}
		catch (RuntimeException e) {
			code = 1;
		}
		System.exit(code);
	}

}
