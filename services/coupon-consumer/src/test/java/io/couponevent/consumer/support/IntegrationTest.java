package io.couponevent.consumer.support;

import java.util.UUID;

import io.couponevent.testsupport.RequiresHarness;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The whole consumer against the real harness. Topics and groups are fresh per test JVM,
 * so a run never sees another run's records; subclasses share one application context.
 */
@RequiresHarness
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
public abstract class IntegrationTest {

	protected static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	protected static final String TOPIC = "consumer-test-" + RUN;

	protected static final String DLT = TOPIC + "-dlt";

	@DynamicPropertySource
	static void freshTopics(DynamicPropertyRegistry registry) {
		registry.add("coupon.kafka.topic", () -> TOPIC);
		registry.add("coupon.kafka.dead-letter-topic", () -> DLT);
		registry.add("spring.kafka.consumer.group-id", () -> "consumer-test-" + RUN);
		registry.add("coupon.consumer.replay.group-id", () -> "consumer-test-replay-" + RUN);
	}

}
