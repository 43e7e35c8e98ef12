package io.couponevent.api.verify;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.PositiveOrZero;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The verification job ({@code --coupon.job=verify}): which run it judges and where it
 * records the verdict.
 *
 * @param coupon the coupon the load test attacked
 * @param testRun the k6-operator TestRun to wait for (its name is the run's
 * {@code testid}); empty: judge at once
 * @param runners the TestRun's parallelism: its runner Jobs {@code <testRun>-1..N} are
 * judged by their exit (0: k6's thresholds passed); 0: not judged
 * @param namespace the namespace of the TestRun and the ConfigMap; empty: the service
 * account's
 * @param configMap the ConfigMap the verdict is written into (a JSON merge patch of its
 * data); empty: none, the log only
 * @param waitingRoom whether the event has a waiting room (an admission line is reported)
 * @param apiServer the Kubernetes API
 * @param serviceAccount where the pod's service account token and CA are mounted
 * @param testRunTimeout longest wait for the TestRun to end
 * @param settleTimeout longest wait, after the TestRun ended, for every invariant to hold
 * (the consumer drains, the reconciler settles what a run left in flight) before the
 * verdict is taken as it stands
 * @param poll pause between two looks
 */
@Validated
@ConfigurationProperties("coupon.verify")
public record VerifyProperties(@PositiveOrZero long coupon, String testRun, @PositiveOrZero int runners,
		String namespace, String configMap, boolean waitingRoom,
		@NotNull @DefaultValue("https://kubernetes.default.svc") URI apiServer,
		@NotNull @DefaultValue("/var/run/secrets/kubernetes.io/serviceaccount") Path serviceAccount,
		@NotNull @DefaultValue("6h") Duration testRunTimeout, @NotNull @DefaultValue("5m") Duration settleTimeout,
		@NotNull @DefaultValue("5s") Duration poll) {

	boolean waitsForTestRun() {
		return testRun != null && !testRun.isBlank();
	}

	boolean writesConfigMap() {
		return configMap != null && !configMap.isBlank();
	}

	/** Whether the job needs the Kubernetes API at all. */
	boolean usesKubernetes() {
		return waitsForTestRun() || writesConfigMap();
	}

}
