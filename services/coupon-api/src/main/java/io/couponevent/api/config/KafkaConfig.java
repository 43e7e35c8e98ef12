package io.couponevent.api.config;

import java.util.Map;

import io.couponevent.common.kafka.CouponKafkaProperties;
import io.couponevent.common.kafka.KafkaHealthIndicator;
import org.apache.kafka.clients.producer.ProducerConfig;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.kafka.autoconfigure.DefaultKafkaProducerFactoryCustomizer;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaAdmin;

/**
 * The shared {@code coupon.kafka} names, the producer's time bounds and the Kafka
 * readiness check.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(CouponKafkaProperties.class)
class KafkaConfig {

	/**
	 * Readiness needs Kafka: without brokers every issuance would end in a compensated
	 * 503.
	 */
	@Bean
	KafkaHealthIndicator kafka(KafkaAdmin kafkaAdmin, KafkaListenerEndpointRegistry listeners,
			ApplicationEventPublisher events) {
		return new KafkaHealthIndicator(kafkaAdmin, listeners, events);
	}

	/**
	 * The producer's time bounds: the blocking {@code send} and each request within
	 * {@code coupon.issuance.send-timeout}, so a request stuck on a lost broker is
	 * retried on the partition's next leader; delivery within
	 * {@code coupon.issuance.delivery-timeout}, so a record whose request gave up (its
	 * slot held by the compensation) still lands once Kafka has fenced the lost broker,
	 * rather than expiring unsent while its unit stays held until the reconciler's
	 * {@code stale-after}.
	 */
	@Bean
	DefaultKafkaProducerFactoryCustomizer producerTimeouts(IssuanceProperties issuance) {
		long timeout = issuance.sendTimeout().toMillis();
		long delivery = issuance.deliveryTimeout().toMillis();
		return factory -> factory.updateConfigs(Map.<String, Object>of(ProducerConfig.MAX_BLOCK_MS_CONFIG,
				Math.max(100, timeout / 2), ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Math.max(1000, delivery),
				ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.max(500, timeout - 200)));
	}

}
