package io.couponevent.api.verify;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.couponevent.api.coupon.Coupon;
import io.couponevent.api.coupon.CouponRepository;
import io.couponevent.api.issuance.ReservationStore;
import io.couponevent.api.reconcile.ConsumerLag;
import io.couponevent.api.verify.Verdict.Check;
import io.couponevent.api.verify.Verdict.Observed;
import io.couponevent.api.verify.Verdict.Runner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.ExitCodeGenerator;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * QA's verdict in the cluster ({@code --coupon.job=verify}): waits for the k6-operator's
 * TestRun to end, then judges the invariants ({@link Verdict}) against MySQL, the
 * issuance Redis and Kafka until they hold or the settle timeout passes, prints one line
 * per invariant, writes them into the verdict ConfigMap and exits 0 on PASS,
 * {@value #FAILED} on FAIL (1 when it could not judge at all).
 */
@Component
@ConditionalOnProperty(name = "coupon.job", havingValue = "verify")
public class VerificationJob implements ExitCodeGenerator {

	/**
	 * Exit code of a FAIL verdict: the chart's pod failure policy fails the Job on it.
	 */
	public static final int FAILED = 3;

	private static final Logger log = LoggerFactory.getLogger(VerificationJob.class);

	private final VerifyProperties properties;

	private final CouponRepository repository;

	private final ReservationStore store;

	private final ConsumerLag lag;

	private volatile String result;

	VerificationJob(VerifyProperties properties, CouponRepository repository, ReservationStore store, ConsumerLag lag) {
		if (properties.coupon() <= 0) {
			throw new IllegalArgumentException("coupon.verify.coupon: the coupon to judge is required");
		}
		this.properties = properties;
		this.repository = repository;
		this.store = store;
		this.lag = lag;
	}

	/** Waits, judges, records; returns PASS or FAIL. */
	public String run() {
		KubernetesApi kube = properties.usesKubernetes()
				? new KubernetesApi(properties.apiServer(), properties.serviceAccount()) : null;
		String namespace = namespace();
		String stage = null;
		List<Runner> runners = List.of();
		if (properties.waitsForTestRun()) {
			stage = awaitTestRun(kube, namespace);
			runners = runners(kube, namespace);
		}
		List<Check> checks = settle(stage, runners);
		String verdict = Verdict.result(checks);
		List<String> lines = checks.stream().map(Check::line).toList();
		String subject = properties.waitsForTestRun() ? "TestRun " + properties.testRun() : "the event";
		log.info("verdict {} for {}, coupon {}:", verdict, subject, properties.coupon());
		lines.forEach(line -> log.info("  {}", line));
		if (properties.writesConfigMap()) {
			Map<String, String> data = new LinkedHashMap<>();
			data.put("result", verdict);
			data.put("invariants", String.join("\n", lines) + "\n");
			data.put("testid", properties.waitsForTestRun() ? properties.testRun() : "");
			data.put("coupon", Long.toString(properties.coupon()));
			data.put("judgedAt", Instant.now().toString());
			kube.mergePatch(apiPath(namespace, "configmaps", properties.configMap()), Map.of("data", data));
			log.info("verdict written to ConfigMap {}/{}", namespace, properties.configMap());
		}
		this.result = verdict;
		return verdict;
	}

	@Override
	public int getExitCode() {
		return Verdict.FAIL.equals(result) ? FAILED : 0;
	}

	private String awaitTestRun(KubernetesApi kube, String namespace) {
		String path = "/apis/k6.io/v1alpha1/namespaces/" + namespace + "/testruns/" + properties.testRun();
		Instant deadline = Instant.now().plus(properties.testRunTimeout());
		String last = "";
		while (true) {
			Optional<JsonNode> run = kube.get(path);
			String stage = run.map(r -> r.path("status").path("stage").asString("")).orElse("");
			if (!stage.equals(last)) {
				log.info("TestRun {}: stage {}", properties.testRun(), run.isPresent() ? stage : "(not found)");
				last = stage;
			}
			if ("finished".equals(stage) || "error".equals(stage)) {
				return stage;
			}
			if (Instant.now().isAfter(deadline)) {
				return (stage.isEmpty() ? "none" : stage) + " after " + properties.testRunTimeout() + " (timed out)";
			}
			pause();
		}
	}

	/** The runner Jobs the k6-operator names {@code <testRun>-1..N}. */
	private List<Runner> runners(KubernetesApi kube, String namespace) {
		List<Runner> out = new ArrayList<>();
		for (int i = 1; i <= properties.runners(); i++) {
			String name = properties.testRun() + "-" + i;
			Boolean succeeded = kube.get(apiPath(namespace, "jobs", name)).map(job -> {
				JsonNode status = job.path("status");
				if (status.path("succeeded").asInt(0) > 0) {
					return Boolean.TRUE;
				}
				return status.path("failed").asInt(0) > 0 ? Boolean.FALSE : null;
			}).orElse(null);
			out.add(new Runner(name, succeeded));
		}
		return out;
	}

	/**
	 * Judges until every invariant holds or the settle timeout passes: the consumer may
	 * still be draining, and the reconciler releases what a run left in flight only
	 * {@code stale-after} later.
	 */
	private List<Check> settle(String stage, List<Runner> runners) {
		Instant deadline = Instant.now().plus(properties.settleTimeout());
		while (true) {
			List<Check> checks = Verdict.judge(observe(stage, runners));
			if (Verdict.PASS.equals(Verdict.result(checks)) || Instant.now().isAfter(deadline)) {
				return checks;
			}
			log.info("not settled yet: {}",
					checks.stream().filter(c -> Boolean.FALSE.equals(c.ok())).map(Check::line).toList());
			pause();
		}
	}

	private Observed observe(String stage, List<Runner> runners) {
		long id = properties.coupon();
		Coupon coupon = repository.find(id)
			.orElseThrow(() -> new IllegalStateException("coupon " + id + " is not registered in MySQL"));
		// Redis first: a reservation persisted between the two reads is a row, not a
		// loss.
		var reservations = store.all(id);
		var slots = store.slots(id);
		var rows = repository.findAllIssued(id);
		Long lagNow;
		try {
			lagNow = lag.total();
		}
		catch (IllegalStateException e) {
			log.warn("consumer lag unknown: {}", e.getMessage());
			lagNow = null;
		}
		return new Observed(id, coupon.quantity(), rows, reservations, slots.free(), slots.next(), lagNow, stage,
				runners, properties.waitingRoom());
	}

	private String namespace() {
		if (properties.namespace() != null && !properties.namespace().isBlank()) {
			return properties.namespace();
		}
		if (!properties.usesKubernetes()) {
			return "";
		}
		try {
			return Files.readString(properties.serviceAccount().resolve("namespace")).trim();
		}
		catch (IOException e) {
			throw new IllegalStateException("coupon.verify.namespace unset and no service account namespace: " + e, e);
		}
	}

	private static String apiPath(String namespace, String kind, String name) {
		String group = "jobs".equals(kind) ? "/apis/batch/v1" : "/api/v1";
		return group + "/namespaces/" + namespace + "/" + kind + "/" + name;
	}

	private void pause() {
		try {
			Thread.sleep(properties.poll());
		}
		catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted", e);
		}
	}

}
