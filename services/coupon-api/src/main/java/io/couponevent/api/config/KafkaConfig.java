package io.couponevent.api.config;

import java.util.Map;

import io.couponevent.common.kafka.CouponKafkaProperties;
import io.couponevent.common.kafka.KafkaHealthIndicator;
import org.apache.kafka.clients.producer.ProducerConfig;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.kafka.autoconfigure.DefaultKafkaProducerFactoryCustomizer;
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
	KafkaHealthIndicator kafka(KafkaAdmin kafkaAdmin, KafkaListenerEndpointRegistry listeners) {
		return new KafkaHealthIndicator(kafkaAdmin, listeners);
	}

	/**
	 * Bounds every blocking point of the producer by
	 * {@code coupon.issuance.send-timeout}: a record the request gave up on should not be
	 * delivered much later (it has been compensated by then). See
	 * {@link #producerSettings(long)}.
	 */
	@Bean
	DefaultKafkaProducerFactoryCustomizer producerTimeouts(IssuanceProperties issuance) {
		Map<String, Object> settings = producerSettings(issuance.sendTimeout().toMillis());
		return factory -> factory.updateConfigs(settings);
	}

	/**
	 * The producer's time bounds for a send timeout of {@code timeout} ms.
	 * <ul>
	 * <li>Each send waits at most the request's own deadline: delivery within the send
	 * timeout, each produce request a little less, a metadata or buffer wait half of
	 * it.</li>
	 * <li>A broker that stopped answering is routed around (KIP-794): the records carry
	 * no partitioning key ({@code partitioner.ignore.keys}), and a partition whose leader
	 * has not taken a produce request for a quarter of the send timeout gets no new
	 * records, where the sticky partitioner would keep filling a batch that cannot drain.
	 * (Every partition still waits for the lost broker to leave its ISR, which the
	 * brokers' {@code broker.session.timeout.ms} bounds: acks=all.)</li>
	 * <li>Metadata is at most one send timeout old: new leaders are learnt within one
	 * request's deadline even where no error tells the producer (a leader moved back
	 * after the broker's return).</li>
	 * </ul>
	 */
	static Map<String, Object> producerSettings(long timeout) {
		return Map.of(ProducerConfig.MAX_BLOCK_MS_CONFIG, Math.max(100, timeout / 2),
				ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Math.max(1000, timeout),
				ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.max(500, timeout - 200),
				ProducerConfig.PARTITIONER_AVAILABILITY_TIMEOUT_MS_CONFIG, Math.max(100, timeout / 4),
				ProducerConfig.METADATA_MAX_AGE_CONFIG, Math.max(1000, timeout));
	}

}
