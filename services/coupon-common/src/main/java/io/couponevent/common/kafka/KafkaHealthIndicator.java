package io.couponevent.common.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Node;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * Readiness of a service that needs Kafka (Boot has no Kafka health indicator): UP when
 * the cluster answers with at least one broker and every listener container that should
 * run does run. Without brokers coupon-api would compensate every issuance into a 503; a
 * stopped listener leaves coupon-consumer's partitions unread. Register it as the bean
 * {@code kafka}, the name the readiness groups include.
 *
 * <p>
 * A service without listeners (coupon-api) is judged by its brokers alone. The admin
 * client is created on the first check, not while the context starts.
 */
public class KafkaHealthIndicator extends AbstractHealthIndicator implements DisposableBean {

	private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);

	private static final Duration WAIT = Duration.ofSeconds(3);

	private final KafkaAdmin kafkaAdmin;

	private final KafkaListenerEndpointRegistry listeners;

	private volatile Admin admin;

	public KafkaHealthIndicator(KafkaAdmin kafkaAdmin, KafkaListenerEndpointRegistry listeners) {
		super("Kafka health check failed");
		this.kafkaAdmin = kafkaAdmin;
		this.listeners = listeners;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) throws Exception {
		Collection<Node> nodes = client()
			.describeCluster(new DescribeClusterOptions().timeoutMs((int) REQUEST_TIMEOUT.toMillis()))
			.nodes()
			.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
		builder.withDetail("brokers", nodes.size());
		boolean listening = true;
		for (MessageListenerContainer container : this.listeners.getListenerContainers()) {
			builder.withDetail("listener." + container.getListenerId(), container.isRunning() ? "running" : "stopped");
			listening &= container.isRunning() || !container.isAutoStartup();
		}
		if (!nodes.isEmpty() && listening) {
			builder.up();
		}
		else {
			builder.down();
		}
	}

	private Admin client() {
		Admin current = this.admin;
		if (current == null) {
			synchronized (this) {
				if (this.admin == null) {
					this.admin = Admin.create(this.kafkaAdmin.getConfigurationProperties());
				}
				current = this.admin;
			}
		}
		return current;
	}

	@Override
	public void destroy() {
		Admin current = this.admin;
		if (current != null) {
			current.close(REQUEST_TIMEOUT);
		}
	}

}
