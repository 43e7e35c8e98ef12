"""The event on a real Kubernetes node (k8s/node): what the platform team and QA do, in order.

Runs inside the node's network namespace (tests/cluster/run.sh), with the node, KEDA, Strimzi's
cluster operator, the harness (the event's external Redis Cluster and MySQL on the node's address)
and the images already there. The event's Kafka is the chart's own, reconciled by the operator. The
tests depend on each other's state and run in file order; each records its figures in the report
(conftest.py) and its events on the timeline.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pymysql
import pytest
import yaml

from kube import HARDENED_CONTAINER, ROOT, hardened_pod, helm, kubectl, kubectl_json, run, start_pod
from verifier import tokens

HERE = Path(__file__).resolve().parent
RELEASE = "cluster-test"
# The release's own namespace, as skaffold.yaml's event profile names both: test_skaffold.py's
# `skaffold run` upgrades this release.
NS = RELEASE
API = f"{RELEASE}-coupon-api"
CONSUMER = f"{RELEASE}-coupon-consumer"
WAITING_ROOM = f"{RELEASE}-coupon-waiting-room"
VALUES = HERE / "values.yaml"
SCRIPTS_CM = f"{RELEASE}-k6-scripts"
HARNESS = os.environ.get("HARNESS_HOST", "10.245.0.1")
DB = dict(host=HARNESS, port=13306, user="coupon", password="coupon", database="coupon")
VALUES_DOC = yaml.safe_load(VALUES.read_text())
CHART_VALUES = yaml.safe_load((ROOT / "values.yaml").read_text())
TOPIC = CHART_VALUES["kafka"]["topic"]["name"]
DEAD_LETTER_TOPIC = CHART_VALUES["kafka"]["topic"]["deadLetterName"]
COUPONS = {c["id"]: c for c in VALUES_DOC["event"]["coupons"]}
REGISTRY = VALUES_DOC["global"]["imageRegistry"]
# Registries the node's containerd mirrors to REGISTRY (k8s/node/node.sh registry_hosts).
MIRRORED = ("ghcr.io/",)


def _pin(name: str) -> str:
    """A version pinned in scripts/tools.sh (NAME=VERSION), without a leading v."""
    line = next(ln for ln in (ROOT / "scripts/tools.sh").read_text().splitlines() if ln.startswith(f"{name}="))
    return line.split("=", 1)[1].split()[0].lstrip("v")


K6_IMAGE = f"{REGISTRY}/grafana/k6:{_pin('K6_VERSION')}"
# The event's Kafka: the chart's Strimzi cluster (coupon-event.kafkaClusterName), the bootstrap
# Service by its namespace (as KEDA's scaler in namespace keda must name it), the operator's
# release (k8s/node/platform.sh) and Strimzi's Kafka image, which the test's Kafka client runs.
KAFKA = f"{RELEASE}-kafka"
BOOTSTRAP = f"{KAFKA}-kafka-bootstrap.{NS}.svc:9092"
STRIMZI_NS = "strimzi"
KAFKA_IMAGE = f"{REGISTRY}/strimzi/kafka:{_pin('STRIMZI_VERSION')}-kafka-{_pin('KAFKA_VERSION')}"
# Debian's curl and a shell, the helm test's image (k8s/node/event-images.sh).
CURL_IMAGE = f"{REGISTRY}/curlimages/curl:local"
KAFKA_CLIENT = "kafka-client"
GROUP = "coupon-consumer"
# Traefik's NodePort on the node's address (k8s/node/manifests/traefik.yaml): the event's one host.
INGRESS = f"http://{HARNESS}:30080"
# How long a step may take on a slow host before it counts as failed: patient, but bounded.
SLOW = int(os.environ.get("CLUSTER_STEP_TIMEOUT", "900"))
# Seconds from a new Strimzi operator's Ready to a broker it recreated as it started being Ready: 6-9 s
# here (the pod is created as the controller starts, before the operator is Ready), with room for a
# slow host.
BROKER_BACK_S = 45
OUT = Path(os.environ.get("CLUSTER_OUT", ROOT / "build" / "cluster"))
# User ids of this run: a re-run against the same database meets none of its earlier users.
RUN = str(int(time.time()))


def rows(coupon: int, users: str = "%") -> int:
    """Rows of a coupon (of the users whose id matches the LIKE pattern), checked one per user."""
    with pymysql.connect(**DB, connect_timeout=5) as conn, conn.cursor() as cur:
        cur.execute(
            "SELECT COUNT(*), COUNT(DISTINCT user_id) FROM issued_coupons WHERE coupon_id = %s AND user_id LIKE %s",
            (coupon, users),
        )
        total, users = cur.fetchone()
        assert total == users, f"coupon {coupon}: {total} rows for {users} users"
        return total


def poll(predicate, timeout: float, every: float = 1.0) -> tuple[bool, object]:
    """(True, its value) once the predicate returns a truthy value within the timeout; else (False,
    its last value)."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return True, last
        time.sleep(every)
    return False, last


def wait_until(what: str, predicate, timeout: float = SLOW, every: float = 1.0):
    held, last = poll(predicate, timeout, every)
    if not held:
        pytest.fail(f"{what}: not within {timeout:.0f} s (last: {last!r})")
    return last


def deployment_ready(name: str) -> bool:
    d = kubectl_json("-n", NS, "get", "deployment", name)
    want = d["spec"].get("replicas", 1)
    return d["status"].get("readyReplicas", 0) >= max(want, 1)


def running_pods(component: str) -> list[str]:
    pods = kubectl_json(
        "-n", NS, "get", "pods", "-l", f"app.kubernetes.io/instance={RELEASE},app.kubernetes.io/component={component}"
    )["items"]
    return [
        p["metadata"]["name"]
        for p in pods
        if p["status"].get("phase") == "Running" and not p["metadata"].get("deletionTimestamp")
    ]


def cluster_ip(service: str) -> str:
    return kubectl_json("-n", NS, "get", "service", service)["spec"]["clusterIP"]


def jwt_secret_ref() -> dict:
    """The secretKeyRef the chart gives the API for the HS256 key (the TestRun uses the same)."""
    d = kubectl_json("-n", NS, "get", "deployment", API)
    for env in d["spec"]["template"]["spec"]["containers"][0]["env"]:
        ref = env.get("valueFrom", {}).get("secretKeyRef")
        if ref and "jwt" in ref["name"]:
            return ref
    pytest.fail("the API Deployment has no JWT secret reference")


# ---- k6 as a Job ------------------------------------------------------------------------------------


def k6_job(name: str, *, script: str, env: list[dict]) -> None:
    """A Job that runs k6 with one of the chart's scripts (the script ConfigMap mounted at /scripts
    with lib/ beside the script) and the given env, as the release's load generator: the test's own
    traffic (issuance from a pod, the backlog). QA's load test runs through the k6-operator."""
    items = [
        {"key": k, "path": k.replace("__", "/")}
        for k in sorted(kubectl_json("-n", NS, "get", "configmap", SCRIPTS_CM)["data"])
    ]
    labels = {
        "app.kubernetes.io/name": "coupon-event",
        "app.kubernetes.io/instance": RELEASE,
        "app.kubernetes.io/component": "loadtest",
        "coupon-event.io/k6-run": name,
    }
    container = {
        "name": "k6",
        "image": K6_IMAGE,
        "imagePullPolicy": "IfNotPresent",
        "command": ["k6", "run", "--quiet", f"/scripts/{script}"],
        # The summary JSON on stdout, after k6's text summary (one writer, so never interleaved).
        "env": [*env, {"name": "SUMMARY_PATH", "value": "/dev/stdout"}],
        "volumeMounts": [
            {"name": "scripts", "mountPath": "/scripts", "readOnly": True},
            {"name": "tmp", "mountPath": "/tmp"},
        ],
        # Small: the node's requests must fit the consumer at its maximum beside it (values.yaml).
        "resources": {"requests": {"cpu": "50m", "memory": "128Mi"}},
        "securityContext": HARDENED_CONTAINER,
    }
    pod = {
        "restartPolicy": "Never",
        "automountServiceAccountToken": False,
        "securityContext": {"runAsNonRoot": True, "runAsUser": 12345, "seccompProfile": {"type": "RuntimeDefault"}},
        "volumes": [
            {"name": "scripts", "configMap": {"name": SCRIPTS_CM, "items": items}},
            {"name": "tmp", "emptyDir": {}},
        ],
        "containers": [container],
    }
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "namespace": NS,
            "labels": {"coupon-event.io/test": "cluster", "coupon-event.io/k6-run": name},
        },
        "spec": {
            "backoffLimit": 0,
            "ttlSecondsAfterFinished": 3600,
            "template": {"metadata": {"labels": labels}, "spec": pod},
        },
    }
    kubectl("apply", "-f", "-", input=json.dumps(job))


def k6_result(name: str, timeout: float = SLOW) -> tuple[int, list[dict], str]:
    """Waits for the Job's pod to end: (its exit code, k6 summaries, logs)."""
    codes, summaries, logs = k6_pods_result(f"coupon-event.io/k6-run={name}", f"k6 job {name}", timeout)
    return max(codes), summaries, logs


def k6_pods_result(selector: str, what: str, timeout: float = SLOW) -> tuple[list[int], list[dict], str]:
    """Waits for the k6 pods the label selector names to end: (exit codes in pod-name order, the k6
    summaries their logs hold, the logs)."""

    def ended():
        pods = kubectl_json("-n", NS, "get", "pods", "-l", selector)["items"]
        states = [(p["status"].get("containerStatuses") or [{}])[0].get("state", {}).get("terminated") for p in pods]
        return pods if pods and all(states) else None

    pods = sorted(wait_until(what, ended, timeout, every=2), key=lambda p: p["metadata"]["name"])
    codes, summaries, logs = [], [], ""
    for p in pods:
        codes.append(p["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"])
        text = kubectl("-n", NS, "logs", p["metadata"]["name"]).stdout
        logs += text
        # k6's own log lines (stderr, time="…") may land anywhere in the pod's log.
        text = "\n".join(line for line in text.splitlines() if not line.startswith('time="'))
        start = text.find('{\n  "scenario"')
        if start >= 0:
            summaries.append(json.JSONDecoder().raw_decode(text[start:])[0])
    return codes, summaries, logs


def merged_summary(summaries: list[dict]) -> dict:
    """One k6 summary of a test run on several runners (execution segments): counts added, the
    slowest percentile and the longest window kept, thresholds passed only where all passed."""
    merged = dict(summaries[0])
    for s in summaries[1:]:
        for key, value in s.items():
            mine = merged.get(key)
            if key in ("users", "user_offset", "coupon_id") or isinstance(value, str):
                continue
            if isinstance(value, bool):
                merged[key] = bool(mine) and value
            elif isinstance(value, (int, float)) and isinstance(mine, (int, float)):
                merged[key] = max(mine, value) if key.endswith(("_ms", "_s")) else mine + value
            elif isinstance(value, dict) and isinstance(mine, dict):
                merged[key] = {
                    k: (bool(mine.get(k, True)) and v) if isinstance(v, bool) else mine.get(k, v)
                    for k, v in {**mine, **value}.items()
                }
    return merged


def k6_env(coupon: int, **extra) -> list[dict]:
    env = [
        {"name": "BASE_URL", "value": f"http://{API}:8080"},
        {"name": "COUPON_ID", "value": str(coupon)},
        {"name": "JWT_SECRET", "valueFrom": {"secretKeyRef": jwt_secret_ref()}},
        # Functional runs: every answer is judged, latency on cold JVMs sharing two cores is not.
        {"name": "P95_MS", "value": "60000"},
        {"name": "P99_MS", "value": "60000"},
    ]
    return env + [{"name": k, "value": str(v)} for k, v in extra.items()]


# ---- the steps ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def chart() -> str:
    """The chart without its Bitnami dependencies (they can only be fetched from their registry;
    this event uses external data stores, so they render nothing)."""
    dest = OUT / "chart"
    run([str(ROOT / "tests/chart/offline-chart.sh"), str(dest)])
    return str(dest)


def test_install(chart, report):
    """helm install as a platform team would; the API, consumer and waiting-room Deployments Ready
    through their real probes; the migration and registration hooks complete."""
    kubectl("create", "namespace", NS, check=False)
    # The database password, as a team with a managed database keeps it: a Secret of its own.
    kubectl("-n", NS, "create", "secret", "generic", "coupon-db", "--from-literal=password=coupon", check=False)
    t0 = report.event("helm install")
    proc = subprocess.Popen(
        [
            str(ROOT / ".tools/bin/helm"),
            "install",
            RELEASE,
            chart,
            "-n",
            NS,
            "-f",
            str(VALUES),
            "--wait",
            "--timeout",
            f"{SLOW}s",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    ready = wait_until(
        "API, consumer and waiting room Ready",
        lambda: all(_safe(deployment_ready, d) for d in (API, CONSUMER, WAITING_ROOM)) or proc.poll() not in (None, 0),
        SLOW,
        every=2,
    )
    if proc.poll() is None:
        t_ready = report.event("API, consumer and waiting-room Deployments Ready")
        report.figures["pods_ready_s"] = round(t_ready - t0, 1)
    out = proc.communicate(timeout=SLOW)[0]
    assert proc.returncode == 0, f"helm install failed:\n{out}"
    assert ready is True
    if report.figures["pods_ready_s"] is None:  # helm returned first: Ready by then at the latest
        report.figures["pods_ready_s"] = round(report.event("API, consumer and waiting-room Deployments Ready") - t0, 1)
    report.event("helm install returned (post-install hooks done)")
    # The API is Ready through its main connector's /readyz (readinessOnMainPort), which answers.
    probe = kubectl_json("-n", NS, "get", "deployment", API)["spec"]["template"]["spec"]["containers"][0][
        "readinessProbe"
    ]
    assert probe["httpGet"] == {"path": "/readyz", "port": "http", "scheme": "HTTP"}, probe
    run(["curl", "-fsS", "--max-time", "10", f"http://{cluster_ip(API)}:8080/readyz"])
    status = json.loads(helm("status", RELEASE, "-n", NS, "-o", "json").stdout)
    hooks = {
        h["name"]: (h.get("last_run") or {}).get("phase") == "Succeeded"
        for h in status.get("hooks", [])
        if "test" not in ",".join(h.get("events") or [])
    }
    report.figures["hooks"] = hooks
    assert hooks and all(hooks.values()), hooks
    assert {f"{RELEASE}-migrate", f"{RELEASE}-register"} <= set(hooks)


def _seconds(start: str, end: str) -> float:
    """Seconds between two Kubernetes timestamps (RFC 3339, fractions ignored)."""
    from datetime import datetime

    parse = lambda t: datetime.fromisoformat(re.sub(r"\.\d+", "", t).replace("Z", "+00:00"))  # noqa: E731
    return (parse(end) - parse(start)).total_seconds()


def _condition(obj: dict, kind: str) -> dict:
    return next((c for c in (obj.get("status") or {}).get("conditions", []) if c["type"] == kind), {})


def _kafka_client_pod() -> None:
    """A pod with Strimzi's Kafka image that sleeps, for Kafka's own CLI tools against the event's
    brokers (the listener's NetworkPolicy admits it: tests/cluster/values.yaml kafkaClientsFrom)."""
    env = [
        {"name": "KAFKA_HEAP_OPTS", "value": "-Xmx128m"},
        {"name": "KAFKA_JVM_PERFORMANCE_OPTS", "value": "-XX:TieredStopAtLevel=1"},
    ]
    labels = {"coupon-event.io/test": "kafka-client"}
    start_pod(
        hardened_pod(KAFKA_CLIENT, NS, KAFKA_IMAGE, ["sleep", "7200"], uid=1001, labels=labels, env=env, tmp=True)
    )


def kafka_cli(
    tool: str, *args: str, config: str = "", input: str | None = None, check: bool = True
) -> subprocess.CompletedProcess:
    """One of Kafka's CLI tools (a class of kafka-tools) in the Kafka client pod, against the event's
    bootstrap Service, with `config` as its client properties (--command-config / --producer.config)
    and `input` on its standard input."""
    flag = "--producer.config" if tool.endswith("ConsoleProducer") else "--command-config"
    script = 'printf "%s" "$1" > /tmp/client.properties; shift; exec /opt/kafka/bin/kafka-run-class.sh "$@"'
    return kubectl(
        "-n",
        NS,
        "exec",
        "-i",
        KAFKA_CLIENT,
        "--",
        "sh",
        "-c",
        script,
        "kafka-cli",
        config,
        tool,
        "--bootstrap-server",
        BOOTSTRAP,
        flag,
        "/tmp/client.properties",
        *args,
        input=input or "",
        check=check,
        timeout=120,
    )


# The test's own KafkaUser on the authenticated listener (tests/cluster/values.yaml leaves the chart's
# kafka.strimzi.authentication on): it may describe the event's topics, their configs and the
# consumer group, for the checks below; its client properties once the user operator made them.
PROBE_USER = f"{RELEASE}-probe"
PROBE: dict[str, str] = {}


def _probe_user() -> str:
    acls = [
        {
            "resource": {"type": "topic", "name": TOPIC, "patternType": "prefix"},
            "operations": ["Describe", "DescribeConfigs"],
        },
        {"resource": {"type": "group", "name": GROUP, "patternType": "literal"}, "operations": ["Describe"]},
    ]
    user = {
        "apiVersion": "kafka.strimzi.io/v1",
        "kind": "KafkaUser",
        "metadata": {
            "name": PROBE_USER,
            "namespace": NS,
            "labels": {"strimzi.io/cluster": KAFKA, "coupon-event.io/test": "cluster"},
        },
        "spec": {"authentication": {"type": "scram-sha-512"}, "authorization": {"type": "simple", "acls": acls}},
    }
    kubectl("apply", "-f", "-", input=json.dumps(user))
    wait_until(
        f"KafkaUser {PROBE_USER} Ready",
        lambda: _condition(kubectl_json("-n", NS, "get", "kafkauser", PROBE_USER), "Ready").get("status") == "True",
        300,
        2,
    )
    return client_config(PROBE_USER)


def client_config(user: str) -> str:
    """Client properties that log in as a KafkaUser, from the Secret Strimzi's user operator wrote."""
    import base64

    jaas = base64.b64decode(kubectl_json("-n", NS, "get", "secret", user)["data"]["sasl.jaas.config"]).decode()
    return f"security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config={jaas}\n"


def topic_end_offsets(topic: str) -> int:
    """The sum of the topic's end offsets (records ever written to it)."""
    out = kafka_cli("org.apache.kafka.tools.GetOffsetShell", "--topic", topic, config=PROBE["config"]).stdout
    return sum(int(ln.rsplit(":", 1)[1]) for ln in out.splitlines() if ln.startswith(f"{topic}:"))


def describe_topic(name: str, config: str = "") -> dict:
    """PartitionCount, ReplicationFactor and min.insync.replicas of a topic, as Kafka reports them."""
    out = kafka_cli(
        "org.apache.kafka.tools.TopicCommand", "--describe", "--topic", name, config=config or PROBE["config"]
    ).stdout
    head = next(ln for ln in out.splitlines() if ln.startswith(f"Topic: {name}\t") and "PartitionCount" in ln)
    fields = dict(re.findall(r"(\w+): (\S+)", head))
    configs = dict(c.split("=", 1) for c in fields.get("Configs", "").split(",") if "=" in c)
    return {
        "partitions": int(fields["PartitionCount"]),
        "replicas": int(fields["ReplicationFactor"]),
        "min_insync_replicas": int(configs.get("min.insync.replicas", 0)),
    }


def under_replicated(topic: str) -> list[str] | None:
    """The topic's partitions whose in-sync replicas are fewer than their replicas, as Kafka lists
    them (None: Kafka did not answer)."""
    proc = kafka_cli(
        "org.apache.kafka.tools.TopicCommand",
        "--describe",
        "--topic",
        topic,
        "--under-replicated-partitions",
        config=PROBE["config"],
        check=False,
    )
    if proc.returncode != 0:
        return None
    return [ln.strip() for ln in proc.stdout.splitlines() if "Partition:" in ln]


def group_lag(config: str = "") -> int | None:
    """The consumer group's total lag on the issuance topic (None: the group has no offsets yet)."""
    out = kafka_cli(
        "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
        "--describe",
        "--group",
        GROUP,
        config=config or PROBE["config"],
        check=False,
    ).stdout
    lags = [
        int(c[5])
        for c in (ln.split() for ln in out.splitlines())
        if len(c) >= 6 and c[0] == GROUP and c[1] == TOPIC and c[5].isdigit()
    ]
    return sum(lags) if lags else None


def test_strimzi_runs_the_event_kafka(report):
    """Strimzi's cluster operator (strimzi, watching every namespace) reconciled the chart's Kafka and
    KafkaNodePools: three brokers and three dedicated controllers, Ready; its topic operator created
    the issuance and dead-letter topics with the partitions, replicas and min ISR the chart rendered,
    as Kafka itself describes them; KEDA's trigger names the bootstrap Service with its namespace."""
    figures = report.figures["strimzi"]
    op = kubectl_json("-n", STRIMZI_NS, "get", "deployment", "strimzi-cluster-operator")
    figures["operator_ready_s"] = _seconds(
        op["metadata"]["creationTimestamp"], _condition(op, "Available")["lastTransitionTime"]
    )
    kafka = wait_until(
        f"Kafka {KAFKA} Ready",
        lambda: (lambda k: k if _condition(k, "Ready").get("status") == "True" else None)(
            kubectl_json("-n", NS, "get", "kafka", KAFKA)
        ),
        300,
        2,
    )
    figures["kafka_ready_s"] = _seconds(
        kafka["metadata"]["creationTimestamp"], _condition(kafka, "Ready")["lastTransitionTime"]
    )
    figures["nodes"] = {}
    for name in ("controller", "broker"):
        status = kubectl_json("-n", NS, "get", "kafkanodepool", name)["status"]
        pods = kubectl_json("-n", NS, "get", "pods", "-l", f"strimzi.io/cluster={KAFKA},strimzi.io/pool-name={name}")[
            "items"
        ]
        figures["nodes"][name] = {
            "replicas": status.get("replicas"),
            "roles": sorted(status.get("roles", [])),
            "node_ids": status.get("nodeIds"),
            "ready": sum(_condition(p, "Ready").get("status") == "True" for p in pods),
        }
    claims = kubectl_json("-n", NS, "get", "pvc", "-l", f"strimzi.io/cluster={KAFKA}")["items"]
    figures["storage"] = {
        "claims": len(claims),
        "bound": sum(c["status"].get("phase") == "Bound" for c in claims),
        "class": sorted({c["spec"].get("storageClassName") for c in claims}),
    }
    nodes = figures["nodes"]
    report.event(
        f"Kafka {KAFKA} Ready ({figures['kafka_ready_s']:.0f} s after it was created), "
        f"{nodes['broker']['ready']} brokers and {nodes['controller']['ready']} controllers Ready, "
        f"{figures['storage']['bound']} claims bound"
    )
    assert {n: (f["replicas"], f["roles"], f["ready"]) for n, f in nodes.items()} == {
        "controller": (3, ["controller"], 3),
        "broker": (3, ["broker"], 3),
    }, nodes
    assert figures["storage"]["bound"] == 6, figures["storage"]
    _kafka_client_pod()
    PROBE["config"] = _probe_user()
    rendered = {
        t["spec"]["topicName"]: t
        for t in kubectl_json("-n", NS, "get", "kafkatopics", "-l", f"strimzi.io/cluster={KAFKA}")["items"]
    }
    topics = {}
    for name in (TOPIC, DEAD_LETTER_TOPIC):
        spec = rendered[name]["spec"]
        want = {
            "partitions": spec["partitions"],
            "replicas": spec["replicas"],
            "min_insync_replicas": int(spec["config"]["min.insync.replicas"]),
        }
        wait_until(
            f"KafkaTopic {name} Ready",
            lambda name=name: (
                _condition(kubectl_json("-n", NS, "get", "kafkatopic", name), "Ready").get("status") == "True"
            ),
            300,
            2,
        )
        topics[name] = {**describe_topic(name), "as_rendered": None}
        topics[name]["as_rendered"] = {k: topics[name][k] for k in want} == want
    figures["topics"] = topics
    figures["topics_ready"] = all(t["as_rendered"] for t in topics.values())
    report.event(
        "topics by the topic operator: "
        + ", ".join(
            f"{n} {t['partitions']} partitions x{t['replicas']} min ISR {t['min_insync_replicas']}"
            for n, t in topics.items()
        )
    )
    assert figures["topics_ready"], topics
    so = kubectl_json("-n", NS, "get", "scaledobject", CONSUMER)
    report.figures["keda"]["bootstrap"] = so["spec"]["triggers"][0]["metadata"]["bootstrapServers"]
    assert report.figures["keda"]["bootstrap"] == BOOTSTRAP


def test_kafka_refuses_unauthenticated_producers(report):
    """SCRAM-SHA-512 on the services' listener: a pod that the listener's NetworkPolicy admits (the
    test's Kafka client) cannot write to the issuance topic without credentials, and the topic's end
    offsets do not move; with a KafkaUser's credentials the same pod reaches the same brokers."""
    figures = report.figures["kafka_auth"]
    before = topic_end_offsets(TOPIC)
    figures["authenticated_describe_ok"] = True
    proc = kafka_cli(
        "org.apache.kafka.tools.ConsoleProducer",
        "--topic",
        TOPIC,
        "--sync",
        "--producer-property",
        "max.block.ms=15000",
        "--producer-property",
        "delivery.timeout.ms=20000",
        "--producer-property",
        "request.timeout.ms=10000",
        config="",
        input=f'{{"couponId":1,"userId":"intruder-{RUN}","slot":1}}\n',
        check=False,
    )
    after = topic_end_offsets(TOPIC)
    output = proc.stdout + proc.stderr
    errors = [ln.strip() for ln in output.splitlines() if "Exception" in ln or "ERROR" in ln]
    figures.update(
        unauthenticated_produce_exit=proc.returncode,
        issuance_offsets_before=before,
        issuance_offsets_after=after,
        refused_with=errors[0][:300] if errors else None,
    )
    figures["unauthenticated_produce_refused"] = after == before and (proc.returncode != 0 or bool(errors))
    report.event(
        f"a producer without credentials: exit {proc.returncode}, issuance offsets {before} -> {after}"
        f" ({figures['refused_with']})"
    )
    assert figures["unauthenticated_produce_refused"], output[-3000:]


def test_refused_credentials_restart_the_consumer(report):
    """A pod keeps the SCRAM password it read at its start; when Kafka refuses it (the User Operator
    wrote a new one: a rotation, or two reconciliations racing at the user's creation) only a
    restart reads the Secret again. The consumer is given a wrong password: after
    KafkaHealthIndicator.REFUSED_BOUND without an answer its liveness goes BROKEN and the kubelet
    restarts it (the patched pod's liveness threshold is 1, so the restart follows the first BROKEN
    answer rather than the test event's slow-host threshold of 6). Then the Deployment is rolled
    back and the consumer is Ready again."""
    figures = report.figures["kafka_auth"]
    deploy = kubectl_json("-n", NS, "get", "deployment", CONSUMER)
    container = deploy["spec"]["template"]["spec"]["containers"][0]["name"]
    jaas = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="{}" password="wrong";'
    user = f"{KAFKA}-consumer"
    wrong = {"name": "SPRING_KAFKA_PROPERTIES_SASL_JAAS_CONFIG", "value": jaas.format(user), "valueFrom": None}
    patch = {
        "spec": {
            "template": {
                "spec": {"containers": [{"name": container, "env": [wrong], "livenessProbe": {"failureThreshold": 1}}]}
            }
        }
    }
    t0 = report.event("consumer given a wrong Kafka password")
    kubectl("-n", NS, "patch", "deployment", CONSUMER, "--type", "strategic", "-p", json.dumps(patch))

    def restarted():
        pods = kubectl_json(
            "-n", NS, "get", "pods", "-l", f"app.kubernetes.io/instance={RELEASE},app.kubernetes.io/component=consumer"
        )["items"]
        for p in pods:
            env = p["spec"]["containers"][0].get("env", [])
            if any(e.get("value") == wrong["value"] for e in env):
                status = (p["status"].get("containerStatuses") or [{}])[0]
                if status.get("restartCount", 0) >= 1:
                    return status
        return None

    try:
        status = wait_until("the consumer restarted by its liveness probe", restarted, SLOW, 3)
        figures["refused_restart_s"] = round(report.event("consumer restarted (liveness BROKEN)") - t0, 1)
        figures["refused_restart_reason"] = (status.get("lastState", {}).get("terminated") or {}).get("reason")
    finally:
        kubectl("-n", NS, "rollout", "undo", f"deployment/{CONSUMER}")
        kubectl("-n", NS, "rollout", "status", f"deployment/{CONSUMER}", f"--timeout={SLOW}s", timeout=SLOW + 20)
    report.event("consumer rolled back, Ready")


def _safe(fn, *args):
    try:
        return fn(*args)
    except AssertionError:
        return False


def test_helm_test(report):
    proc = helm("test", RELEASE, "-n", NS, "--logs", "--timeout", f"{SLOW}s", check=False, timeout=SLOW + 60)
    report.figures["helm_test"] = "passed" if proc.returncode == 0 else "failed"
    report.event(f"helm test {report.figures['helm_test']}")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_issue_from_a_pod(report):
    """20 users issue coupon 1 through the API's Service from a pod; 20 rows reach MySQL."""
    users = 20
    k6_job(
        "issue-from-pod", script="spike.js", env=k6_env(1, VUS=users, USERS=users, RAMP="1s", USER_PREFIX=f"pod-{RUN}-")
    )
    code, summaries, logs = k6_result("issue-from-pod")
    assert code == 0, logs[-3000:]
    assert summaries and summaries[0]["accepted"] == users, summaries
    wait_until("20 rows in MySQL", lambda: rows(1, f"pod-{RUN}-%") == users, 120)
    report.figures["issued_rows"] = rows(1, f"pod-{RUN}-%")
    report.event(f"{users} coupons issued from a pod, {users} rows in MySQL")


def _http(
    method: str, url: str, token: str, headers: dict | None = None, body: dict | None = None
) -> tuple[int, dict, float]:
    """(status, JSON body, milliseconds) of one request with a user's bearer token."""
    data = json.dumps(body or {}).encode() if method in ("POST", "PUT") else None
    req = urllib.request.Request(
        url,
        data=data,
        method=method,
        headers={
            "Authorization": f"Bearer {token}",
            "Accept": "application/json",
            "Content-Type": "application/json",
            **(headers or {}),
        },
    )
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            status, body = resp.status, resp.read()
    except urllib.error.HTTPError as e:
        status, body = e.code, e.read()
    return status, json.loads(body or b"{}"), round((time.monotonic() - t0) * 1000, 1)


def test_waiting_room_join_and_poll(report):
    """A user joins coupon 1's queue through the waiting room's Service, polls as told until let in
    (the budget is far above one user, so at once), and issues with the entry token it got."""
    assert running_pods("waiting-room"), "no waiting-room pod running"
    assert deployment_ready(WAITING_ROOM)
    user = f"room-{RUN}"
    token = tokens.token(user, _jwt_secret_value(), ttl=600)
    entries = f"http://{cluster_ip(WAITING_ROOM)}:8070/api/v1/waiting-room/coupons/1/entries"
    status, joined, join_ms = _http("POST", entries, token)
    assert status == 200, joined
    assert joined["state"] in ("QUEUED", "ADMITTED"), joined
    figures = report.figures["waiting_room"]
    figures.update(join_status=status, join_state=joined["state"], join_ms=join_ms)
    report.event(f"waiting room: joined coupon 1 ({joined['state']}, {join_ms} ms)")
    polls: list = []
    polled = _poll_until_admitted(entries, token, polls)
    assert polled.get("entryToken"), polled
    figures.update(polls=len(polls), poll_ms_max=max(polls), state=polled["state"])
    report.event(f"waiting room: admitted after {len(polls)} poll(s), slowest {max(polls)} ms")
    status, issued, issue_ms = _http(
        "POST",
        f"http://{cluster_ip(API)}:8080/api/v1/coupons/1/issuances",
        token,
        {"Coupon-Entry-Token": polled["entryToken"]},
    )
    assert status == 202, issued
    figures.update(issued_with_entry_token=status)
    report.event(f"issued coupon 1 with the entry token ({status}, {issue_ms} ms)")


def _poll_until_admitted(entries: str, token: str, polls: list, headers: dict | None = None) -> dict:
    def admitted():
        status, body, ms = _http("GET", f"{entries}/me", token, headers)
        assert status == 200, body
        polls.append(ms)
        if body["state"] == "ADMITTED":
            return body
        assert body["state"] == "QUEUED", body
        time.sleep(min(body.get("pollAfterMs", 1000), 5000) / 1000)
        return None

    return wait_until("admitted by the waiting room", admitted, 120, every=0)


def test_waiting_room_gates_the_api_while_it_queues(report):
    """Coupon 1's zone switched to mode on (admin API): while it queues, the API refuses an issuance
    without an entry token (403 ENTRY_REQUIRED) and takes the admitted user's token, signed with the
    key both read from the release's Secret; back to auto, the gate opens again."""
    secret = _jwt_secret_value()
    admin = tokens.token(f"room-admin-{RUN}", secret, admin=True, ttl=600)
    base = f"http://{cluster_ip(WAITING_ROOM)}:8070/api/v1"
    issue = f"http://{cluster_ip(API)}:8080/api/v1/coupons/1/issuances"
    zone = f"{base}/admin/waiting-room/zones/coupon-1"
    figures = report.figures["waiting_room"]
    status, body, _ = _http("PUT", zone, admin, body={"mode": "on"})
    assert status == 200, body
    t0 = report.event("waiting room: zone coupon-1 mode on")
    user = f"gated-{RUN}"
    token = tokens.token(user, secret, ttl=600)
    status, joined, _ = _http("POST", f"{base}/waiting-room/coupons/1/entries", token)
    assert status == 200 and joined["state"] in ("QUEUED", "ADMITTED"), joined
    tries = iter(range(10**6))

    def refused():
        status, body, _ = _http("POST", issue, tokens.token(f"no-token-{RUN}-{next(tries)}", secret, ttl=600))
        assert status in (202, 403), (status, body)
        return (status, body) if status == 403 else None

    status, body = wait_until("the API refusing issuances without an entry token", refused, 60)
    assert body.get("code") == "ENTRY_REQUIRED", body
    figures.update(
        gate_refused=status,
        gate_refused_code=body["code"],
        gate_on_s=round(report.event("API refuses without a token: 403 ENTRY_REQUIRED") - t0, 1),
    )
    polls: list = []
    admitted = _poll_until_admitted(f"{base}/waiting-room/coupons/1/entries", token, polls)
    status, issued, _ = _http("POST", issue, token, {"Coupon-Entry-Token": admitted["entryToken"]})
    assert status == 202, issued
    figures.update(gated_polls=len(polls), gated_issue_with_token=status)
    report.event(f"admitted after {len(polls)} poll(s); issued with the entry token through the gate (202)")
    status, body, _ = _http("PUT", zone, admin, body={"mode": "auto"})
    assert status == 200, body
    t1 = report.event("waiting room: zone coupon-1 back to auto")

    def open_again():
        status, body, _ = _http("POST", issue, tokens.token(f"after-gate-{RUN}-{next(tries)}", secret, ttl=600))
        assert status in (202, 403), (status, body)
        return status == 202

    wait_until("the gate open again", open_again, 60)
    figures["gate_off_s"] = round(report.event("gate open again: issuance without a token accepted") - t1, 1)


def test_one_way_in_through_the_ingress_controller(report):
    """The users' one host through a real ingress controller (Traefik, class traefik), as through an
    ALB on EKS: the page, the room's API and the issuance API by the Host header; a user joins, is
    admitted and issues; the API's admin paths are not routed."""
    host = VALUES_DOC["ingress"]["host"]
    ingress = kubectl_json("-n", NS, "get", "ingress", RELEASE)
    assert ingress["spec"]["ingressClassName"] == "traefik", ingress["spec"]
    by_host = {"Host": host}

    def page():
        req = urllib.request.Request(f"{INGRESS}/", headers={**by_host, "Accept": "text/html"})
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return resp.status, resp.headers.get("Content-Type", ""), resp.read().decode()
        except (urllib.error.URLError, OSError):
            return None

    served = wait_until("the page served through Traefik", lambda: (p := page()) and p[0] == 200 and p, 180, every=2)
    status, content_type, html = served
    assert content_type.startswith("text/html") and "<html" in html.lower(), (content_type, html[:200])
    figures = report.figures.setdefault("ingress", {})
    image = kubectl_json("-n", "traefik", "get", "deployment", "traefik")["spec"]["template"]["spec"]["containers"][0][
        "image"
    ]
    figures.update(controller=image.rsplit("/", 1)[-1], host=host, page=status)
    report.event(f"ingress: the page answers {status} through Traefik at {host}")

    user = f"front-{RUN}"
    token = tokens.token(user, _jwt_secret_value(), ttl=600)
    entries = f"{INGRESS}/api/v1/waiting-room/coupons/1/entries"
    status, joined, _ = _http("POST", entries, token, by_host)
    assert status == 200 and joined["state"] in ("QUEUED", "ADMITTED"), (status, joined)
    polls: list = []
    admitted = _poll_until_admitted(entries, token, polls, by_host)
    status, issued, _ = _http(
        "POST",
        f"{INGRESS}/api/v1/coupons/1/issuances",
        token,
        {**by_host, "Coupon-Entry-Token": admitted["entryToken"]},
    )
    assert status == 202, issued
    wait_until("the front-door user's row in MySQL", lambda: rows(1, user) == 1, 120)
    figures.update(join=200, polls=len(polls), issued=status, row=1)
    report.event(f"ingress: joined, admitted after {len(polls)} poll(s), issued ({status}), row in MySQL")

    admin = tokens.token(f"front-admin-{RUN}", _jwt_secret_value(), admin=True, ttl=600)
    req = urllib.request.Request(
        f"{INGRESS}/api/v1/admin/coupons/1", headers={**by_host, "Authorization": f"Bearer {admin}"}
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            status, body = resp.status, resp.read()[:300]
    except urllib.error.HTTPError as e:
        status, body = e.code, e.read()[:300]
    figures["api_admin_routed"] = status < 400
    assert status >= 400, f"the API's admin path answered through the ingress: {status} {body!r}"


def test_api_hpa_reads_cpu(report):
    """The API's HPA (and the waiting room's) scale on CPU: with metrics-server on the node, each
    reads its pods' CPU utilisation from the resource metrics API (status.currentMetrics)."""

    def cpu(name):
        hpa = kubectl_json("-n", NS, "get", "hpa", name)
        for m in hpa["status"].get("currentMetrics") or []:
            if m.get("type") == "Resource" and m["resource"]["name"] == "cpu":
                value = m["resource"]["current"].get("averageUtilization")
                if value is not None:
                    return value
        return None

    readings = {}
    for name in (API, WAITING_ROOM):
        readings[name] = wait_until(
            f"HPA {name} reading CPU", lambda name=name: [v for v in [cpu(name)] if v is not None], 300, 5
        )[0]
        report.event(f"HPA {name}: CPU {readings[name]}% of requests (metrics-server)")
    report.figures["hpa_cpu_metric"] = True
    report.figures["hpa_cpu_percent"] = readings


PROBE_NS = "np-probe"
RELEASE_LABELS = {"app.kubernetes.io/instance": RELEASE, "app.kubernetes.io/part-of": "coupon-event"}


def _probe_pod(namespace: str, name: str, labels: dict, first: str = "") -> None:
    """A curl pod (the helm test's image) that sleeps, to try connections from; `first` is a shell
    command it runs the moment it starts, before the sleep."""
    kubectl("create", "namespace", namespace, check=False)
    command = ["sh", "-c", f"{first}\nexec sleep 3600"]
    labels = {"coupon-event.io/test": "cluster", **labels}
    start_pod(hardened_pod(name, namespace, CURL_IMAGE, command, uid=10001, labels=labels))


def _connect_cmd(target: str) -> str:
    """A shell command that prints `connected` when a TCP connection to host:port opens. The firewall
    rejects (kube-router's REJECT: curl fails at once) or the server answers or closes: curl's
    verbose "Connected to" line is the open connection, whatever the protocol behind the port."""
    return (
        f"if curl -sv --connect-timeout 3 --max-time 5 http://{target}/ 2>&1 </dev/null | grep -q 'Connected to'; "
        "then echo connected; else echo refused; fi"
    )


def _connects(namespace: str, pod: str, target: str) -> bool:
    proc = kubectl("-n", namespace, "exec", pod, "--", "sh", "-c", _connect_cmd(target), check=False, timeout=60)
    return proc.stdout.strip() == "connected"


def _settles(namespace: str, pod: str, target: str, want: bool, within: float = 60) -> bool:
    """Whether the path reaches the wanted state within `within` seconds: the enforcer learns a new
    pod's address from the API server only after its container has started, so a new pod's first
    connections may still meet the rules of before it (allowed out, not yet admitted in)."""
    deadline = time.monotonic() + within
    while True:
        if _connects(namespace, pod, target) == want:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(2)


def _pod_ip(component: str) -> str:
    return _pod_ip_of(f"app.kubernetes.io/instance={RELEASE},app.kubernetes.io/component={component}")


def _pod_ip_of(selector: str) -> str:
    pods = kubectl_json("-n", NS, "get", "pods", "-l", selector)["items"]
    return next(p["status"]["podIP"] for p in pods if p["status"].get("phase") == "Running")


def test_network_policies_enforced(report):
    """kube-router's firewall enforces the chart's NetworkPolicies. The paths the event needs work
    (the rest of this suite is the event working through them; here from pods wearing the labels the
    policies admit) and the paths the chart means to deny are denied: from a pod in another
    namespace, from a release pod that is no client (the default-deny selects it), from a load
    generator and a helm test pod beyond their own peers."""
    if os.environ.get("NETWORK_POLICIES", "1") == "0":
        report.figures["networkpolicy_enforced"] = False
        pytest.skip("NETWORK_POLICIES=0: no kube-router on the node, the policies are stored only")
    api, consumer, room = _pod_ip("api"), _pod_ip("consumer"), _pod_ip("waiting-room")
    kafka = f"{_pod_ip_of(f'strimzi.io/cluster={KAFKA},strimzi.io/pool-name=broker')}:9092"
    redis, mysql = f"{HARNESS}:7001", f"{HARNESS}:13306"
    try:
        _probe_pod(PROBE_NS, "outsider", {})
        _probe_pod(NS, "no-client", {**RELEASE_LABELS, "app.kubernetes.io/component": "no-client"})
        _probe_pod(NS, "as-loadtest", {**RELEASE_LABELS, "app.kubernetes.io/component": "loadtest"})
        # Its first connection is made as its container starts, as the k6-operator's starter makes its
        # only one: whether the enforcer admits a new pod by its labels that early.
        _probe_pod(
            NS, "as-test", {**RELEASE_LABELS, "app.kubernetes.io/component": "test"}, first=_connect_cmd(f"{api}:8081")
        )
        first = wait_until(
            "the new pod's first connection logged",
            lambda: kubectl("-n", NS, "logs", "as-test", check=False).stdout.split(),
            60,
            1,
        )
        allowed = {
            "another namespace -> API :8080 (apiIngressFrom empty: everyone)": (PROBE_NS, "outsider", f"{api}:8080"),
            "another namespace -> waiting room :8070 (everyone)": (PROBE_NS, "outsider", f"{room}:8070"),
            "load generator -> API :8080": (NS, "as-loadtest", f"{api}:8080"),
            "load generator -> waiting room :8070": (NS, "as-loadtest", f"{room}:8070"),
            "helm test pod -> API management :8081": (NS, "as-test", f"{api}:8081"),
            "helm test pod -> API :8080": (NS, "as-test", f"{api}:8080"),
        }
        denied = {
            "another namespace -> API management :8081": (PROBE_NS, "outsider", f"{api}:8081"),
            "another namespace -> consumer admin :8080": (PROBE_NS, "outsider", f"{consumer}:8080"),
            "another namespace -> Kafka :9092 (Strimzi's listener policy: the release's clients only)": (
                PROBE_NS,
                "outsider",
                kafka,
            ),
            "another namespace -> waiting room management :8071": (PROBE_NS, "outsider", f"{room}:8071"),
            "release pod without a client label -> Kafka": (NS, "no-client", kafka),
            "release pod without a client label -> Redis": (NS, "no-client", redis),
            "release pod without a client label -> MySQL": (NS, "no-client", mysql),
            "release pod without a client label -> API :8080 (its own egress is denied)": (
                NS,
                "no-client",
                f"{api}:8080",
            ),
            "load generator -> Redis": (NS, "as-loadtest", redis),
            "load generator -> API management :8081": (NS, "as-loadtest", f"{api}:8081"),
            "load generator -> consumer admin :8080": (NS, "as-loadtest", f"{consumer}:8080"),
            "helm test pod -> MySQL": (NS, "as-test", mysql),
        }
        ok = {k: _settles(*v, want=True, within=30) for k, v in allowed.items()}
        blocked = {k: _settles(*v, want=False, within=30) for k, v in denied.items()}
    finally:
        kubectl("delete", "namespace", PROBE_NS, "--wait=false", check=False)
        kubectl(
            "-n", NS, "delete", "pod", "no-client", "as-loadtest", "as-test", "--wait=true", check=False, timeout=120
        )
    figures = report.figures
    figures["network_paths"] = {
        "allowed": ok,
        "denied": blocked,
        "new_pod_first_connect_by_label": first[-1] if first else None,
    }
    figures["allowed_paths_ok"] = f"{sum(ok.values())}/{len(ok)}"
    figures["denied_paths_denied"] = f"{sum(blocked.values())}/{len(blocked)}"
    figures["networkpolicy_enforced"] = all(blocked.values())
    report.event(
        f"network paths: {figures['allowed_paths_ok']} allowed work, "
        f"{figures['denied_paths_denied']} denied are denied; a new pod admitted by its labels: "
        f"first connection {figures['network_paths']['new_pod_first_connect_by_label']}"
    )
    assert all(ok.values()), ok
    assert all(blocked.values()), blocked


def external_metric() -> tuple[str, float]:
    """The lag the HPA reads: KEDA's external metric, through the aggregated metrics API."""
    hpa = kubectl_json("-n", NS, "get", "hpa", f"keda-hpa-{CONSUMER}")
    metric = hpa["spec"]["metrics"][0]["external"]["metric"]
    selector = ",".join(f"{k}={v}" for k, v in metric["selector"]["matchLabels"].items())
    raw = kubectl(
        "get",
        "--raw",
        f"/apis/external.metrics.k8s.io/v1beta1/namespaces/{NS}/{metric['name']}?labelSelector={selector}",
    ).stdout
    value = json.loads(raw)["items"][0]["value"]
    return metric["name"], float(value[:-1]) / 1000 if value.endswith("m") else float(value)


def test_keda_scales_the_consumer_on_lag(report):
    """A backlog larger than the consumers' write cap: KEDA's ScaledObject goes Active, the HPA it
    made scales the consumer out to more pods (Running), and back to its minimum once drained."""
    a = VALUES_DOC["couponConsumer"]["autoscaling"]
    so = kubectl_json("-n", NS, "get", "scaledobject", CONSUMER)
    assert any(c["type"] == "Ready" and c["status"] == "True" for c in so["status"]["conditions"]), so["status"]
    hpa = kubectl_json("-n", NS, "get", "hpa", f"keda-hpa-{CONSUMER}")
    assert hpa["spec"]["minReplicas"] == a["minReplicas"] and hpa["spec"]["maxReplicas"] == a["maxReplicas"]
    wait_until("consumer at its minimum", lambda: len(running_pods("consumer")) == a["minReplicas"], 300)
    keda = report.figures["keda"]
    keda.update(min_replicas=a["minReplicas"], max_replicas=a["maxReplicas"], max_replicas_seen=1)
    mine = f"backlog-{RUN}-%"
    backlog = 1200
    t_start = report.event(f"backlog: {backlog} issuances of coupon 1 from a k6 Job")
    # No status polling: users do not wait for their row, so the backlog builds at the API's pace.
    k6_job(
        "backlog",
        script="spike.js",
        env=k6_env(1, VUS=100, USERS=backlog, RAMP="2s", POLL_INTERVAL=0, USER_PREFIX=f"backlog-{RUN}-"),
    )
    threshold = float(a["lagThreshold"])
    marks: dict[str, float] = {}
    timeline: list[tuple[float, int, int, float, int]] = []  # (s, pods Running, HPA desired, lag, rows)
    deadline = time.monotonic() + SLOW
    while time.monotonic() < deadline:
        pods = running_pods("consumer")
        keda["max_replicas_seen"] = max(keda["max_replicas_seen"], len(pods))
        _, lag = _metric_or_none()
        so = kubectl_json("-n", NS, "get", "scaledobject", CONSUMER)
        active = any(c["type"] == "Active" and c["status"] == "True" for c in so["status"].get("conditions", []))
        desired = kubectl_json("-n", NS, "get", "hpa", f"keda-hpa-{CONSUMER}")["status"].get("desiredReplicas", 0)
        done = rows(1, mine)
        timeline.append((round(report.now() - t_start, 1), len(pods), desired, lag or 0.0, done))
        for key, cond, text in [
            ("lag", lag is not None and lag > threshold, f"lag {lag or 0:.0f} above the threshold {threshold:.0f}"),
            ("active", active, "ScaledObject Active"),
            ("desired", desired > a["minReplicas"], f"HPA desires {desired} replicas"),
            ("out", len(pods) > a["minReplicas"], f"{len(pods)} consumer pods Running"),
            ("max", len(pods) == a["maxReplicas"], f"{len(pods)} consumer pods Running (max)"),
            ("drained", "out" in marks and done >= backlog and lag == 0, f"backlog drained ({done} rows), lag 0"),
            (
                "in",
                "drained" in marks and len(pods) == a["minReplicas"] and desired == a["minReplicas"],
                f"back to {len(pods)} consumer pod",
            ),
        ]:
            if key not in marks and cond:
                marks[key] = report.event(text)
        if "in" in marks:
            break
        time.sleep(1)
    drawn = keda_report(timeline, marks, t_start, a)
    keda["report"] = str(drawn)
    assert drawn.read_text().count("<polyline") == 4, f"{drawn}: a series is missing"
    assert 0 <= timeline[0][0] < timeline[-1][0] <= SLOW + 60, f"{drawn}: seconds off the step's clock"
    code, summaries, logs = k6_result("backlog", 60)
    assert code == 0, logs[-3000:]
    assert summaries and summaries[0]["accepted"] == backlog, summaries
    assert "lag" in marks, "the lag never rose above the threshold"
    assert "out" in marks, f"the consumer never scaled out: {marks}"
    # Seconds from the backlog's start (the load Job created) to each step.
    keda["lag_over_threshold_s"] = round(marks["lag"] - t_start, 1)
    keda["active_s"] = round(marks["active"] - t_start, 1) if "active" in marks else None
    keda["hpa_scaled_s"] = round(marks["desired"] - t_start, 1) if "desired" in marks else None
    keda["scale_out_s"] = round(marks["out"] - t_start, 1)
    assert "drained" in marks and "in" in marks, f"the consumer did not scale back in: {marks}"
    # From the backlog drained (lag 0) to the consumer back at its minimum.
    keda["drained_s"] = round(marks["drained"] - t_start, 1)
    keda["scale_in_s"] = round(marks["in"] - marks["drained"], 1)
    assert keda["max_replicas_seen"] > a["minReplicas"]
    assert rows(1, mine) == backlog


def keda_report(timeline, marks, t_start, autoscaling) -> Path:
    """build/cluster/keda.html: the consumer's replicas (Running, and the HPA's desired count) and
    the lag KEDA scaled on beside the rows written, over the backlog's seconds."""
    import render  # local/report, the run report's charts

    def series(i):
        return [(row[0], row[1 + i]) for row in timeline]

    steps = ", ".join(f"{k} {round(t - t_start, 1)} s" for k, t in marks.items())
    body = (
        f"<p>min {autoscaling['minReplicas']}, max {autoscaling['maxReplicas']} replicas, lag threshold "
        f"{autoscaling['lagThreshold']} per replica; {html.escape(steps)}</p>"
        + '<div class="chart">'
        + render.chart(
            "coupon-consumer replicas",
            [("pods Running", series(0)), ("HPA desired", series(1))],
            x_label="seconds since the backlog started",
            y_label="replicas",
        )
        + '</div><div class="chart">'
        + render.chart(
            "what KEDA scaled on",
            [("consumer lag (records, KEDA's metric)", series(2)), ("rows written", series(3))],
            x_label="seconds since the backlog started",
        )
        + "</div>"
    )
    path = OUT / "keda.html"
    path.write_text(render.page("KEDA scaling the consumer on lag", "make test-cluster, the backlog step", body))
    return path


def _metric_or_none():
    try:
        return external_metric()
    except (AssertionError, KeyError, IndexError, ValueError):
        return None, None


def test_loadtest_testrun(chart, report):
    """QA's load test through the real k6-operator (k6-operator-system): helm upgrade with QA's
    overlay (examples/loadtest.yaml: spike.js, 5 % of users clicking twice) renders the TestRun with
    two runners; the operator runs the initializer (k6 archive and inspect), two paused
    runners on their execution segments, asks each runner's REST API for its status, and starts them
    with its starter; the TestRun reaches stage finished, each runner's k6 exits 0, and the
    invariants hold against the database."""
    run_id = str(int(time.time()))
    parallelism = 2
    t0 = report.event(f"helm upgrade: loadtest.runId={run_id}, parallelism {parallelism}")
    # No --wait: the upgrade adds only the TestRun, whose stages this follows itself (the upgrade's
    # hooks take long enough here that it has often finished by then).
    helm(
        "upgrade",
        RELEASE,
        chart,
        "-n",
        NS,
        "-f",
        str(VALUES),
        # QA's overlay as docs/kubernetes.md gives it, sized for the node's two cores.
        "-f",
        str(ROOT / "examples/loadtest.yaml"),
        "--set",
        f"loadtest.runId={run_id},loadtest.parallelism={parallelism},loadtest.env.VUS=100,loadtest.env.RAMP=5s",
        "--timeout",
        f"{SLOW}s",
        timeout=SLOW + 60,
    )
    trs = kubectl_json("-n", NS, "get", "testruns.k6.io")["items"]
    assert len(trs) == 1, [t["metadata"]["name"] for t in trs]
    name = trs[0]["metadata"]["name"]
    figures = report.figures["testrun"] = {
        "name": name,
        "operator_exercised": False,
        "parallelism": parallelism,
        "stages": [],
    }
    stages = figures["stages"]

    def ended():
        stage = (kubectl_json("-n", NS, "get", "testrun", name).get("status") or {}).get("stage", "")
        if stage and (not stages or stages[-1] != stage):
            stages.append(stage)
            report.event(f"TestRun {name}: stage {stage}")
        return stage if stage in ("finished", "error") else None

    stage = wait_until(f"TestRun {name} finished", ended, SLOW, every=2)
    figures.update(stage=stage, seconds=round(report.event(f"TestRun {name} {stage}") - t0, 1))
    jobs = {j["metadata"]["name"]: j for j in kubectl_json("-n", NS, "get", "jobs", "-l", f"k6_cr={name}")["items"]}
    figures["jobs"] = sorted(jobs)
    assert stage == "finished", (stages, _operator_logs())
    codes, summaries, logs = k6_pods_result(f"k6_cr={name},runner=true", f"runners of {name}", 120)
    figures.update(
        runners_exit=codes,
        operator_exercised=all(f"{name}-{role}" in jobs for role in ("initializer", "starter"))
        and len(codes) == parallelism,
        requests=sum(s["requests"] for s in summaries),
        accepted=sum(s["accepted"] for s in summaries),
    )
    report.event(f"runners finished: k6 exit {codes}, {figures['accepted']} accepted")
    assert figures["operator_exercised"], figures
    assert codes == [0] * parallelism, logs[-4000:]
    assert len(summaries) == parallelism, "a runner's log holds no k6 summary"
    summary = merged_summary(summaries)
    path = OUT / "testrun-k6.json"
    path.write_text(json.dumps(summary))
    coupon = int(summary["coupon_id"])
    proc = verify(path, coupon)
    (OUT / "testrun-verify.txt").write_text(proc.stdout + proc.stderr)
    report.figures["testrun"]["invariants"] = "passed" if proc.returncode == 0 else "failed"
    lag = wait_until("the consumer group's lag 0", lambda: (lambda v: [v] if v == 0 else None)(group_lag()), 120, 5)[0]
    report.figures["testrun"]["kafka_lag"] = lag
    report.event(
        f"invariants {report.figures['testrun']['invariants']} (verifier against MySQL, Redis), "
        f"consumer group lag {lag} (Kafka's own tool)"
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


def verify(k6_summary: Path, coupon: int, *extra: str) -> subprocess.CompletedProcess:
    """local/verify.sh against MySQL, Redis and the API. Not Kafka: the brokers advertise names of the
    cluster's DNS, which the node's namespace does not resolve; the test asks the group's lag itself
    (group_lag, Kafka's own tool in the cluster)."""
    env = dict(
        os.environ,
        DB_URL=f"jdbc:mysql://{HARNESS}:13306/coupon",
        DB_USER="coupon",
        DB_PASSWORD="coupon",
        API_URL=f"http://{cluster_ip(API)}:8080",
        JWT_SECRET=_jwt_secret_value(),
        PORT_OFFSET="0",
        HARNESS_HOST=HARNESS,
    )
    return subprocess.run(
        [
            str(ROOT / "local/verify.sh"),
            "verify",
            "--k6",
            str(k6_summary),
            "--coupon",
            str(coupon),
            "--quantity",
            str(COUPONS[coupon]["quantity"]),
            "--drain-timeout",
            "300",
            "--no-kafka",
            *extra,
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=SLOW,
    )


def _ready(namespace: str, pod: str) -> str | None:
    """The pod's uid when it exists and is Ready."""
    proc = kubectl("-n", namespace, "get", "pod", pod, "-o", "json", check=False)
    if proc.returncode != 0:
        return None
    p = json.loads(proc.stdout)
    return (
        p["metadata"]["uid"]
        if _condition(p, "Ready").get("status") == "True" and not p["metadata"].get("deletionTimestamp")
        else None
    )


def _broker_pods() -> list[str]:
    """The brokers' pods in node-id order. Strimzi names a pod <cluster>-<pool>-<node id> and numbers
    the ids across the pools, in the order it first met them: the ids are not known beforehand."""
    pods = kubectl_json("-n", NS, "get", "pods", "-l", f"strimzi.io/cluster={KAFKA},strimzi.io/pool-name=broker")
    return sorted((p["metadata"]["name"] for p in pods["items"]), key=lambda name: int(name.rsplit("-", 1)[1]))


def _broker_back(pod: str, old_uid: str):
    return lambda: (lambda uid: uid if uid and uid != old_uid else None)(_ready(NS, pod))


def test_faults_broker_then_operator_under_load(report):
    """Under load (a k6 Job at a constant arrival rate on coupon 4): a broker pod is deleted, and
    Strimzi's pod set controller brings it back; once it is back in every partition's in-sync
    replicas, the operator's pod is deleted, and while it is gone a second broker: nothing recreates
    that one until the new operator runs, which brings it back. No accepted 202 is lost and nothing
    is issued twice (the verifier, per user), and no user gives up after the 503s of either loss.

    One broker is lost at a time, as Strimzi's own rolling restarts do (a broker is rolled only when
    no partition would fall below its minimum in-sync replicas): a broker Ready is not yet in sync,
    and a second loss before it is leaves partitions with one in-sync replica of the two
    min.insync.replicas asks, which refuses every write until the first has caught up (18 s of
    503s in one run, 21 users gave up)."""
    coupon, prefix = 4, f"fault-{RUN}-"
    faults = report.figures["faults"]
    k6_job(
        "faults",
        script="arrival-rate.js",
        # A 503 (shed while the brokers move leaders) is retried, as the API asks clients to.
        # LOG_OUTCOMES: a line per 202, 503 and unanswered request, for the verifier's per-user check.
        env=k6_env(coupon, STAGES="10:120s", MAX_VUS=150, SHED_RETRIES=5, USER_PREFIX=prefix, LOG_OUTCOMES=1),
    )
    wait_until("load flowing (rows of coupon 4)", lambda: rows(coupon, f"{prefix}%") > 0, 180, 2)
    t0 = report.event("faults: load on coupon 4 flowing")
    brokers = _broker_pods()
    assert len(brokers) == 3, brokers
    first, second = brokers[1], brokers[2]
    uid = _ready(NS, first)
    kubectl("-n", NS, "delete", "pod", first, "--wait=false")
    t1 = report.event(f"faults: broker pod {first} deleted")
    wait_until(f"{first} back and Ready", _broker_back(first, uid), SLOW, 2)
    faults["broker_pod"] = {"pod": first, "recovery_s": round(report.event(f"faults: {first} Ready again") - t1, 1)}
    wait_until(f"{first} back in every in-sync replica set of {TOPIC}", lambda: under_replicated(TOPIC) == [], SLOW, 2)
    faults["broker_pod"]["in_sync_s"] = round(report.event(f"faults: {TOPIC} fully in sync again") - t1, 1)
    operator = next(
        p["metadata"]["name"]
        for p in kubectl_json("-n", STRIMZI_NS, "get", "pods", "-l", "name=strimzi-cluster-operator")["items"]
    )
    uid2 = _ready(NS, second)
    kubectl("-n", STRIMZI_NS, "delete", "pod", operator, "--wait=false")
    kubectl("-n", NS, "delete", "pod", second, "--wait=false")
    t2 = report.event(f"faults: operator pod {operator} deleted, and broker pod {second} with it gone")

    def operator_ready():
        pods = kubectl_json("-n", STRIMZI_NS, "get", "pods", "-l", "name=strimzi-cluster-operator")["items"]
        return any(p["metadata"]["name"] != operator and _condition(p, "Ready").get("status") == "True" for p in pods)

    wait_until("a new operator pod Ready", operator_ready, SLOW, 2)
    t_op = report.event("faults: the new operator pod Ready")
    back = _broker_back(second, uid2)

    # The new operator's pod set controller recreates a missing pod as it starts, unless it drops
    # its start-up events: Strimzi 1.2.0 starts the pod set informer before the Kafka informer, and
    # an event whose Kafka is not in that informer yet is ignored (StrimziPodSetController
    # startController, matchesCrSelector), so the pod waits for the informers' resync (5 min). The
    # runbook's step (docs/runbooks.md, KafkaBrokersMissing): touch the pod set, and the controller
    # reconciles it at once.
    def absent() -> bool:
        return kubectl("-n", NS, "get", "pod", second, check=False).returncode != 0

    nudged = not poll(back, BROKER_BACK_S, 2)[0] and absent()
    if nudged:
        # Every pod set of the cluster carries its strimzi.io/cluster and kind labels (the controller
        # finds the Kafka by them).
        selector = f"strimzi.io/cluster={KAFKA},strimzi.io/kind=Kafka"
        report.event(f"faults: {second} still absent {BROKER_BACK_S} s after the operator: pod sets touched")
        kubectl(
            "-n",
            NS,
            "annotate",
            "strimzipodset",
            "-l",
            selector,
            f"coupon-event.io/touched={int(time.time())}",
            "--overwrite",
        )
    wait_until(f"{second} back and Ready", back, SLOW, 2)
    faults["operator_pod"] = {
        "pod": operator,
        "operator_ready_s": round(t_op - t2, 1),
        "broker": second,
        "recovery_s": round(report.event(f"faults: {second} Ready again") - t2, 1),
        "pod_set_touched": nudged,
    }
    code, summaries, logs = k6_result("faults")
    assert summaries, logs[-3000:]
    summary = summaries[0]
    path = OUT / "faults-k6.json"
    path.write_text(json.dumps(summary))
    outcomes = OUT / "faults-k6.log"
    outcomes.write_text(logs)
    # Per user: every user answered 202 holds a row. A user whose answer was lost in flight (a
    # timeout while the brokers moved) may hold a row without a 202: that is not a loss.
    proc = verify(path, coupon, "--outcomes", str(outcomes))
    (OUT / "faults-verify.txt").write_text(proc.stdout + proc.stderr)
    issued = rows(coupon, f"{prefix}%")  # one row per user, or it fails: duplicates would show here
    lost = _lost_users(proc.stdout)
    for key in ("broker_pod", "operator_pod"):
        faults[key].update(lost=lost, duplicates=0)
    faults.update(
        accepted=summary["accepted"],
        rows=issued,
        k6_exit=code,
        seconds=round(
            report.event(
                f"faults: {summary['accepted']} accepted, {issued} rows, verifier "
                f"{'passed' if proc.returncode == 0 else 'failed'}"
            )
            - t0,
            1,
        ),
        invariants="passed" if proc.returncode == 0 else "failed",
    )
    assert lost == 0, f"{lost} users answered 202 without a row"
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


def _lost_users(verifier_out: str) -> int | None:
    """Users answered 202 without a row, as the verifier's per-user check counted them (None: the
    verifier did not judge per user)."""
    m = re.search(r"users answered 202, (\d+) of them without a row", verifier_out)
    return int(m[1]) if m else None


def test_verdict_in_the_cluster(report):
    """QA's verdict where kubectl shows it: the chart's verification Job (coupon-api image,
    --coupon.job=verify) waited for the TestRun to finish, judged the invariants against MySQL,
    Redis and Kafka, completed (a FAIL fails it) and wrote PASS/FAIL per invariant into the ConfigMap
    <release>-verdict-<runId>."""
    selector = "app.kubernetes.io/component=verify"
    figures = report.figures["verdict"] = {}

    def ended():
        jobs = kubectl_json("-n", NS, "get", "jobs", "-l", selector)["items"]
        done = [
            c["type"]
            for j in jobs
            for c in (j.get("status") or {}).get("conditions", [])
            if c["type"] in ("Complete", "Failed") and c["status"] == "True"
        ]
        return (jobs[0]["metadata"]["name"], done[0]) if len(jobs) == 1 and done else None

    figures["job"], figures["job_status"] = wait_until("the verification Job ended", ended, SLOW, every=3)
    (OUT / "verdict-job.log").write_text(kubectl("-n", NS, "logs", f"job/{figures['job']}", check=False).stdout)
    cms = kubectl_json("-n", NS, "get", "configmaps", "-l", selector)["items"]
    assert len(cms) == 1, [c["metadata"]["name"] for c in cms]
    data = cms[0].get("data") or {}
    figures.update(
        configmap=cms[0]["metadata"]["name"],
        result=data.get("result"),
        testid=data.get("testid"),
        invariants=data.get("invariants", "").splitlines(),
    )
    report.event(f"verdict {figures['result']} ({figures['configmap']}), Job {figures['job_status']}")
    assert figures["testid"] == report.figures["testrun"].get("name"), figures
    assert figures["result"] == "PASS" and figures["job_status"] == "Complete", "\n".join(figures["invariants"])
    assert any(line.startswith("PASS every 202 persisted") for line in figures["invariants"]), figures["invariants"]


def test_images_pulled(report):
    """Every image the event's pods ran (hooks, services, helm test, k6) was pulled from the node's
    registry by the kubelet, as on a cluster that pulls from ECR: nothing is imported into the node's
    containerd, and each image has a "Successfully pulled" event (the first pod to run it pulls it;
    later ones find it "already present"). The k6-operator's starter keeps its upstream name
    (ghcr.io/grafana/k6-operator, the TestRun's default) and is pulled through the node's ghcr.io
    mirror, which is the same registry."""

    def image(event):
        m = re.search(r'image "([^"]+)"', event.get("message", ""))
        return m.group(1) if m else None

    events = kubectl_json("get", "events", "-A", "--field-selector", "reason=Pulled")["items"]
    used = {image(e) for e in events if e["involvedObject"].get("namespace") == NS} - {None}
    pulled = {image(e) for e in events if e.get("message", "").startswith("Successfully pulled")} - {None}
    not_pulled = sorted(used - pulled)
    mirrored = {i for i in used if i.startswith(MIRRORED)}
    elsewhere = sorted(i for i in used - mirrored if not i.startswith(f"{REGISTRY}/"))
    report.figures["images"] = sorted(used)
    report.figures["images_through_mirror"] = sorted(mirrored)
    report.figures["images_pulled"] = bool(used) and not not_pulled and not elsewhere
    report.event(f"{len(used)} images of the event's pods, {len(used & pulled)} pulled from {REGISTRY}")
    services = {f"{REGISTRY}/coupon-event/{m}:" for m in ("coupon-api", "coupon-consumer", "coupon-waiting-room")}
    assert all(any(i.startswith(s) for i in used) for s in services), sorted(used)
    assert not not_pulled, f"images the event ran without pulling them: {not_pulled}"
    assert not elsewhere, f"images not from {REGISTRY}: {elsewhere}"


def _operator_logs() -> str:
    return kubectl(
        "-n", "k6-operator-system", "logs", "deployment/k6-operator-controller-manager", "--tail=60", check=False
    ).stdout


def _jwt_secret_value() -> str:
    import base64

    ref = jwt_secret_ref()
    data = kubectl_json("-n", NS, "get", "secret", ref["name"])["data"]
    return base64.b64decode(data[ref["key"]]).decode()


def test_upgrade_to_a_changed_event(chart, report):
    """A third coupon added by `helm upgrade`: the registration hook runs again and the API serves it."""
    extra = OUT / "values-changed.yaml"
    coupons = [
        *VALUES_DOC["event"]["coupons"],
        {
            "id": 3,
            "name": "Added by upgrade",
            "quantity": 100,
            "opensAt": "2020-01-01T00:00:00Z",
            "closesAt": "2099-01-01T00:00:00Z",
        },
    ]
    extra.write_text(yaml.safe_dump({"event": {"coupons": coupons}}))
    helm(
        "upgrade",
        RELEASE,
        chart,
        "-n",
        NS,
        "-f",
        str(VALUES),
        "-f",
        str(extra),
        "--wait",
        "--timeout",
        f"{SLOW}s",
        timeout=SLOW + 60,
    )
    report.event("helm upgrade: coupon 3 added")
    assert not kubectl_json("-n", NS, "get", "testruns.k6.io")["items"], "the TestRun outlived loadtest.enabled=false"
    url = f"http://{cluster_ip(API)}:8080/api/v1/coupons/3"
    body = json.loads(run(["curl", "-fsS", "--max-time", "10", url]).stdout)
    assert body["id"] == 3 and body["quantity"] == 100, body
    report.event("coupon 3 served by the API")
