package io.couponevent.consumer.config;

import java.util.Map;

import io.couponevent.common.kafka.CouponKafkaProperties;
import io.couponevent.common.kafka.KafkaHealthIndicator;
import io.couponevent.consumer.deadletter.DeadLetterRecoverer;
import io.couponevent.consumer.listener.RetryLaterException;
import io.couponevent.consumer.metrics.ConsumerMetrics;
import org.apache.kafka.common.config.TopicConfig;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.kafka.config.ContainerCustomizer;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.config.TopicBuilder;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.support.serializer.DeserializationException;
import org.springframework.transaction.TransactionException;
import org.springframework.util.backoff.ExponentialBackOff;

/** Listener container, error handling and topic declarations. */
@Configuration(proxyBeanMethods = false)
public class KafkaConfig {

	/**
	 * Readiness: the cluster answers and the listener runs (bean name {@code kafka}, see
	 * the health groups).
	 */
	@Bean
	KafkaHealthIndicator kafka(KafkaAdmin kafkaAdmin, KafkaListenerEndpointRegistry listeners,
			ApplicationEventPublisher events) {
		return new KafkaHealthIndicator(kafkaAdmin, listeners, events);
	}

	@Bean
	DeadLetterRecoverer deadLetterRecoverer(KafkaTemplate<?, ?> template, CouponKafkaProperties topics,
			ConsumerMetrics metrics) {
		return new DeadLetterRecoverer(template, topics, metrics);
	}

	/**
	 * Picked up by Boot's listener container factory. Every database or broker failure is
	 * retried, whole batch, with exponential back-off: unreachable, lock wait, deadlock,
	 * but also errors Spring cannot categorise, such as MySQL's read-only refusal (1290)
	 * right after a failover demotes the writer. Only what is known to be permanent for
	 * one record is not: a constraint violation, which the persister already isolates
	 * record by record, and poison, dead-lettered by the listener. Any other exception is
	 * a bug that retrying cannot fix, so its records are dead-lettered at once as
	 * {@code other} and the partition moves on.
	 */
	@Bean
	DefaultErrorHandler batchErrorHandler(DeadLetterRecoverer recoverer, ConsumerProperties props) {
		ConsumerProperties.Retry retry = props.retry();
		ExponentialBackOff backOff = new ExponentialBackOff(retry.initialInterval().toMillis(), retry.multiplier());
		backOff.setMaxInterval(retry.maxInterval().toMillis());
		if (!retry.maxElapsed().isZero()) {
			backOff.setMaxElapsedTime(retry.maxElapsed().toMillis());
		}
		DefaultErrorHandler handler = new DefaultErrorHandler(recoverer, backOff);
		handler.defaultFalse();
		handler.addRetryableExceptions(DataAccessException.class, TransactionException.class,
				org.springframework.kafka.KafkaException.class, org.apache.kafka.common.KafkaException.class,
				RetryLaterException.class);
		handler.addNotRetryableExceptions(DataIntegrityViolationException.class, DeserializationException.class);
		return handler;
	}

	/**
	 * Concurrency and the graceful-stop wait, from the validated
	 * {@code coupon.consumer.*}.
	 */
	@Bean
	ContainerCustomizer<Object, Object, ConcurrentMessageListenerContainer<Object, Object>> listenerContainerCustomizer(
			ConsumerProperties props) {
		return container -> {
			container.setConcurrency(props.concurrency());
			container.getContainerProperties().setShutdownTimeout(props.shutdownTimeout().toMillis());
		};
	}

	/**
	 * Declared only where the app owns its topics (local harness); Strimzi owns them in
	 * the chart.
	 */
	@Bean
	@ConditionalOnBooleanProperty(name = "coupon.kafka.create-topics", matchIfMissing = true)
	KafkaAdmin.NewTopics couponTopics(CouponKafkaProperties topics) {
		Map<String, String> config = Map.of(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG,
				Integer.toString(topics.minInsyncReplicas()));
		return new KafkaAdmin.NewTopics(
				TopicBuilder.name(topics.topic())
					.partitions(topics.partitions())
					.replicas(topics.replicas())
					.configs(config)
					.build(),
				TopicBuilder.name(topics.deadLetterTopic())
					.partitions(topics.partitions())
					.replicas(topics.replicas())
					.configs(config)
					.build());
	}

}
