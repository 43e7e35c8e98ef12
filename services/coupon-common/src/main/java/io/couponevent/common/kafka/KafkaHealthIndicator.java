package io.couponevent.common.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.AuthenticationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.LivenessState;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.context.ApplicationEventPublisher;
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
 *
 * <p>
 * Credentials Kafka keeps refusing ({@link CredentialRefusals}: no answer for
 * {@link #REFUSED_BOUND} with an authentication error since the last one) set the
 * liveness state to {@link LivenessState#BROKEN}: the kubelet restarts the container,
 * which then reads the Secret's current password.
 */
public class KafkaHealthIndicator extends AbstractHealthIndicator implements DisposableBean {

	private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);

	private static final Duration WAIT = Duration.ofSeconds(3);

	/** How long refused credentials are given to start working. */
	public static final Duration REFUSED_BOUND = Duration.ofSeconds(60);

	private static final Logger log = LoggerFactory.getLogger(KafkaHealthIndicator.class);

	private final KafkaAdmin kafkaAdmin;

	private final KafkaListenerEndpointRegistry listeners;

	private final ApplicationEventPublisher events;

	private final CredentialRefusals refusals = new CredentialRefusals(REFUSED_BOUND, System.nanoTime());

	private volatile Admin admin;

	public KafkaHealthIndicator(KafkaAdmin kafkaAdmin, KafkaListenerEndpointRegistry listeners,
			ApplicationEventPublisher events) {
		super("Kafka health check failed");
		this.kafkaAdmin = kafkaAdmin;
		this.listeners = listeners;
		this.events = events;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) throws Exception {
		Collection<Node> nodes;
		try {
			nodes = client().describeCluster(new DescribeClusterOptions().timeoutMs((int) REQUEST_TIMEOUT.toMillis()))
				.nodes()
				.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
			this.refusals.answered(System.nanoTime());
		}
		catch (ExecutionException | TimeoutException ex) {
			if (ex.getCause() instanceof AuthenticationException) {
				this.refusals.refused();
			}
			if (this.refusals.hopeless(System.nanoTime())) {
				log.error("Kafka has refused this process's credentials for over {} s: liveness BROKEN, so that a "
						+ "restart reads the current Secret", REFUSED_BOUND.toSeconds());
				AvailabilityChangeEvent.publish(this.events, this, LivenessState.BROKEN);
			}
			throw ex;
		}
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
