package io.couponevent.consumer.config;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.AdminClient;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.stereotype.Component;

/**
 * Health contributor {@code kafka} (readiness group): the cluster answers and the listener container
 * is running. Boot has no Kafka health indicator of its own.
 */
@Component("kafka")
public class KafkaHealthIndicator extends AbstractHealthIndicator implements DisposableBean {

    private static final Duration TIMEOUT = Duration.ofSeconds(3);

    private final AdminClient admin;
    private final KafkaListenerEndpointRegistry listeners;

    public KafkaHealthIndicator(KafkaAdmin kafkaAdmin, KafkaListenerEndpointRegistry listeners) {
        super("Kafka health check failed");
        this.admin = AdminClient.create(kafkaAdmin.getConfigurationProperties());
        this.listeners = listeners;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        var cluster = admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) TIMEOUT.toMillis()));
        int brokers = cluster.nodes().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).size();
        builder.withDetail("brokers", brokers);
        boolean listening = true;
        for (MessageListenerContainer container : listeners.getListenerContainers()) {
            builder.withDetail("listener." + container.getListenerId(), container.isRunning() ? "running" : "stopped");
            listening &= container.isRunning() || !container.isAutoStartup();
        }
        if (listening) {
            builder.up();
        } else {
            builder.down();
        }
    }

    @Override
    public void destroy() {
        admin.close(Duration.ofSeconds(1));
    }
}
