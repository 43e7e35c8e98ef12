package io.couponevent.consumer;

import io.couponevent.common.kafka.CouponKafkaProperties;
import io.couponevent.common.security.JwtProperties;
import io.couponevent.consumer.config.ConsumerProperties;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * coupon-consumer: Kafka issuance events → MySQL rows, with a dead-letter topic and its
 * replay.
 */
@SpringBootApplication
@EnableConfigurationProperties({ CouponKafkaProperties.class, ConsumerProperties.class, JwtProperties.class })
public class CouponConsumerApplication {

	public static void main(String[] args) {
		SpringApplication.run(CouponConsumerApplication.class, args);
	}

}
