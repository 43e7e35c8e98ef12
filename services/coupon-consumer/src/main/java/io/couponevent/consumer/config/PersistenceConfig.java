package io.couponevent.consumer.config;

import java.time.Clock;

import io.couponevent.consumer.persist.WriteRateLimiter;

import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
public class PersistenceConfig {

	@Bean
	@ConditionalOnMissingBean
	Clock clock() {
		return Clock.systemUTC();
	}

	/** Absent when the cap is 0 (off): the listener then writes as fast as it reads. */
	@Bean
	@ConditionalOnExpression("${coupon.consumer.max-inserts-per-second:0} > 0")
	WriteRateLimiter writeRateLimiter(ConsumerProperties props) {
		return WriteRateLimiter.system(props.maxInsertsPerSecond());
	}

}
