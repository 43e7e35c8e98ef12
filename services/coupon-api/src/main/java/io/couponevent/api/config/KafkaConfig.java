package io.couponevent.api.config;

import java.util.Map;

import org.apache.kafka.clients.producer.ProducerConfig;

import org.springframework.boot.kafka.autoconfigure.DefaultKafkaProducerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Bounds every blocking point of the producer by {@code coupon.issuance.send-timeout}: a record the
 * request gave up on should not be delivered much later (it has been compensated by then).
 */
@Configuration
public class KafkaConfig {

    @Bean
    DefaultKafkaProducerFactoryCustomizer producerTimeouts(IssuanceProperties issuance) {
        long timeout = issuance.sendTimeout().toMillis();
        return factory -> factory.updateConfigs(Map.<String, Object>of(
                ProducerConfig.MAX_BLOCK_MS_CONFIG, Math.max(100, timeout / 2),
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Math.max(1000, timeout),
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.max(500, timeout - 200)));
    }
}
