package io.couponevent.common;

import io.couponevent.common.kafka.CouponKafkaProperties;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

class CouponKafkaPropertiesTest {

	@Configuration
	@EnableConfigurationProperties(CouponKafkaProperties.class)
	static class Config {

	}

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withUserConfiguration(Config.class);

	@Test
	void defaultsMatchTheContract() {
		runner.run(context -> {
			CouponKafkaProperties props = context.getBean(CouponKafkaProperties.class);
			assertThat(props.topic()).isEqualTo("coupon-issuance");
			assertThat(props.deadLetterTopic()).isEqualTo("coupon-issuance-dlt");
			assertThat(props.consumerGroup()).isEqualTo("coupon-consumer");
			assertThat(props.partitions()).isEqualTo(12);
			assertThat(props.replicas()).isEqualTo((short) 3);
			assertThat(props.minInsyncReplicas()).isEqualTo(2);
		});
	}

	@Test
	void bindsEnvironmentStyleOverrides() {
		runner
			.withPropertyValues("coupon.kafka.topic=t1", "coupon.kafka.dead-letter-topic=t1-dlt",
					"coupon.kafka.replicas=1")
			.run(context -> {
				CouponKafkaProperties props = context.getBean(CouponKafkaProperties.class);
				assertThat(props.topic()).isEqualTo("t1");
				assertThat(props.deadLetterTopic()).isEqualTo("t1-dlt");
				assertThat(props.minInsyncReplicas()).isEqualTo(1);
			});
	}

	@Test
	void blankOrEqualTopicsFailFast() {
		runner.withPropertyValues("coupon.kafka.topic=")
			.run(context -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("coupon.kafka")
				.hasMessageContaining("'topic'"));
		runner.withPropertyValues("coupon.kafka.consumer-group=")
			.run(context -> assertThat(context).getFailure().rootCause().hasMessageContaining("'consumerGroup'"));
		runner.withPropertyValues("coupon.kafka.topic=same", "coupon.kafka.dead-letter-topic=same")
			.run(context -> assertThat(context).getFailure().rootCause().hasMessageContaining("must differ"));
	}

}
