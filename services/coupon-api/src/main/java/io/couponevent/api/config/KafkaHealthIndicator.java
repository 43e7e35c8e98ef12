package io.couponevent.api.config;

import java.util.Collection;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Node;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.stereotype.Component;

/** Readiness needs Kafka: without brokers every issuance would end in a compensated 503. */
@Component("kafka")
public class KafkaHealthIndicator extends AbstractHealthIndicator implements DisposableBean {

    private final KafkaAdmin kafkaAdmin;
    private volatile Admin admin;

    public KafkaHealthIndicator(KafkaAdmin kafkaAdmin) {
        super("Kafka health check failed");
        this.kafkaAdmin = kafkaAdmin;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        Collection<Node> nodes = client().describeCluster(new DescribeClusterOptions().timeoutMs(2000))
                .nodes().get(3, TimeUnit.SECONDS);
        builder.status(nodes.isEmpty() ? org.springframework.boot.health.contributor.Status.DOWN
                : org.springframework.boot.health.contributor.Status.UP).withDetail("brokers", nodes.size());
    }

    private Admin client() {
        if (admin == null) {
            synchronized (this) {
                if (admin == null) admin = Admin.create(kafkaAdmin.getConfigurationProperties());
            }
        }
        return admin;
    }

    @Override
    public void destroy() {
        if (admin != null) admin.close(java.time.Duration.ofSeconds(2));
    }
}
