"""chart-apiserver: the per-event chart installed, upgraded and uninstalled with helm on a real
etcd + kube-apiserver (tests/apiserver/apiserver.sh) that has the operators' CRDs, so every object —
custom resources included — goes through the server's validation. There are no controllers: hook
Jobs never run (installs use --no-hooks; the hooks are checked with a server-side dry run) and
nothing gets scheduled. Run through `tests/apiserver/run.sh` (make chart-apiserver)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import chartcheck as cc
import pytest

from kube import CRDS, ROOT, TIMINGS, helm, kubectl, kubectl_json, load_yaml_all, run

CRD_DIRS = [CRDS / d for d in ("strimzi", "strimzi/access-operator", "keda", "k6-operator", "prometheus-operator")]
CHART_COPY = ROOT / "build" / "chart-apiserver" / "coupon-event"
OFFLINE = "tests/chart/fixtures/offline-external.yaml"

# Scenario -> extra values files on top of the offline overlay (names as in mk/chart.mk); every
# example event gets a scenario, the ones already covered above only once.
SCENARIOS = {
    "defaults": [],
    "external": ["examples/external-kafka.yaml"],
    "loadtest": ["examples/loadtest.yaml"],
    "no-autoscaling": ["examples/dev.yaml"],
    "no-waiting-room": ["tests/chart/fixtures/no-waiting-room.yaml"],
}
SCENARIOS.update(
    {
        f"example-{p.stem}": [f"examples/{p.name}"]
        for p in sorted((ROOT / "examples").glob("*.yaml"))
        if [f"examples/{p.name}"] not in SCENARIOS.values()
    }
)


# ------------------------------------------------------------------------------------ fixtures


@pytest.fixture(scope="session")
def cluster():
    if not os.environ.get("KUBECONFIG"):
        pytest.fail("KUBECONFIG is not set: run through tests/apiserver/run.sh")
    ready = os.environ.get("APISERVER_READY_SECONDS")
    if ready:
        TIMINGS.append(("kube-apiserver + etcd start until /readyz", float(ready)))
    start = time.monotonic()
    # 6.5 MB of CRDs: the server rebuilds its OpenAPI documents for each one, which takes minutes on
    # a busy 2-core machine. One apply per operator, so a slow one shows in the timings.
    for d in CRD_DIRS:
        kubectl(
            "apply",
            "--server-side",
            "--field-manager=chart-test",
            "-f",
            str(d),
            timeout=900,
            timed=f"CRDs of {d.relative_to(CRDS)} applied (server-side)",
        )
    kubectl("wait", "--for=condition=Established", "crd", "--all", "--timeout=300s", timeout=330)
    crds = kubectl_json("get", "crd")["items"]
    TIMINGS.append((f"{len(crds)} CRDs applied and Established", time.monotonic() - start))
    # The cluster-level objects every release relies on (PriorityClasses, the gp3 StorageClass).
    kubectl(
        "apply",
        "--server-side",
        "--field-manager=chart-test",
        "-f",
        str(ROOT / "k8s" / "priorityclasses.yaml"),
        "-f",
        str(ROOT / "k8s" / "storageclass-gp3.yaml"),
    )
    return {c["metadata"]["name"] for c in crds}


@pytest.fixture(scope="session")
def chart(cluster) -> Path:
    if not (ROOT / "Chart.yaml").exists():
        pytest.fail("no Chart.yaml at the repository root")
    out = run(["bash", str(ROOT / "tests" / "chart" / "offline-chart.sh"), str(CHART_COPY)]).stdout.strip()
    return Path(out)


def values_args(chart: Path, files: list[str]) -> list[str]:
    args = ["-f", str(chart / OFFLINE)]
    for f in files:
        args += ["-f", str(chart / f)]
    return args


def external_secrets(chart: Path, files: list[str]) -> dict[str, dict[str, str]]:
    """The Secrets an operator creates before installing an event on external Redis/MySQL."""
    import yaml

    merged: dict = {}
    room_redis: dict = {}
    for f in [OFFLINE, *files]:
        values = yaml.safe_load((chart / f).read_text()) or {}
        g = values.get("global", {})
        for part in ("externalDatabase", "externalRedis", "externalKafka", "jwt", "entry"):
            merged.setdefault(part, {}).update(g.get(part) or {})
        room_redis.update((values.get("couponWaitingRoom") or {}).get("redis") or {})
    secrets = {}
    db, redis, jwt = merged["externalDatabase"], merged["externalRedis"], merged["jwt"]
    sasl = merged["externalKafka"].get("sasl") or {}
    if sasl.get("existingSecret"):
        secrets[sasl["existingSecret"]] = {
            sasl.get("usernameKey", "username"): "coupon",
            sasl.get("passwordKey", "password"): "test-kafka-pw",
        }
    for tls in ((merged["externalKafka"].get("tls") or {}), (redis.get("tls") or {})):
        if tls.get("caSecret"):
            secrets[tls["caSecret"]] = {tls.get("caSecretKey", "ca.crt"): "-----BEGIN CERTIFICATE-----"}
    if db.get("existingSecret"):
        secrets[db["existingSecret"]] = {db.get("existingSecretPasswordKey", "password"): "test-db-password"}
    if redis.get("existingSecret"):
        secrets[redis["existingSecret"]] = {redis.get("existingSecretPasswordKey", "redis-password"): "test-redis-pw"}
    if jwt.get("existingSecret"):
        secrets[jwt["existingSecret"]] = {jwt.get("existingSecretKey", "jwt-secret"): "x" * 48}
    if merged["entry"].get("existingSecret"):
        secrets[merged["entry"]["existingSecret"]] = {
            merged["entry"].get("existingSecretKey", "entry-secret"): "e" * 48
        }
    if room_redis.get("existingSecret"):
        secrets[room_redis["existingSecret"]] = {room_redis.get("existingSecretPasswordKey", "redis-password"): "wr-pw"}
    return secrets


def create_namespace_with_secrets(ns: str, secrets: dict[str, dict[str, str]]):
    # The "default" ServiceAccount is what kube-controller-manager would create in a new namespace;
    # there is none here, and the ServiceAccount admission plugin refuses pods (the helm test) without it.
    docs = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}},
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default", "namespace": ns}},
    ]
    docs += [
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": n, "namespace": ns},
            "type": "Opaque",
            "stringData": data,
        }
        for n, data in secrets.items()
    ]
    kubectl(
        "apply",
        "--server-side",
        "--field-manager=chart-test",
        "-f",
        "-",
        input="\n---\n".join(json.dumps(d) for d in docs),
    )


class Release:
    def __init__(self, scenario: str, chart: Path, files: list[str]):
        self.scenario, self.chart, self.files = scenario, chart, files
        self.name = f"ev-{scenario}"[:40].rstrip("-")
        self.ns = self.name

    def helm(self, *args: str, timed: str | None = None, **kw):
        return helm(*args, "--namespace", self.ns, timed=timed and f"helm {timed} {self.scenario}", **kw)

    def manifest(self) -> list[dict]:
        return load_yaml_all(self.helm("get", "manifest", self.name).stdout)

    def live(self, rendered: list[dict]) -> list[dict]:
        """The release's objects as the API server stores them."""
        text = "\n---\n".join(json.dumps(o) for o in rendered)
        out = kubectl("get", "-f", "-", "-o", "json", "--namespace", self.ns, input=text).stdout
        data = json.loads(out)
        return data["items"] if data.get("kind") == "List" else [data]

    def leftovers(self, objects: list[dict]) -> list[str]:
        """kind/name of those objects still in the API server (after an uninstall: none)."""
        text = "\n---\n".join(json.dumps(o) for o in objects)
        return kubectl(
            "get", "-f", "-", "--namespace", self.ns, "--ignore-not-found", "-o", "name", input=text
        ).stdout.split()

    def namespace_objects(self, *kinds: str) -> dict[tuple[str, str], dict]:
        items = kubectl_json("get", ",".join(k.lower() + "s" for k in kinds), "--namespace", self.ns)["items"]
        return {(o["kind"], o["metadata"]["name"]): o for o in items}


@pytest.fixture(scope="module", params=list(SCENARIOS))
def release(request, chart):
    scenario = request.param
    r = Release(scenario, chart, SCENARIOS[scenario])
    create_namespace_with_secrets(r.ns, external_secrets(chart, r.files))
    r.helm(
        "install",
        r.name,
        str(chart),
        *values_args(chart, r.files),
        "--no-hooks",
        "--timeout",
        "120s",
        timed="install",
        timeout=300,
    )
    r.rendered = r.manifest()
    r.objects = r.live(r.rendered)
    yield r
    r.helm("uninstall", r.name, "--timeout", "120s", timed="uninstall", timeout=300)
    left = r.leftovers(r.rendered)
    assert left == [], f"objects left after helm uninstall: {left}"


# ------------------------------------------------------------------------------------ the server


def test_crds_of_every_operator_are_established(cluster):
    for group in ("kafka.strimzi.io", "access.strimzi.io", "keda.sh", "k6.io", "monitoring.coreos.com"):
        assert any(name.endswith("." + group) for name in cluster), group


def test_every_rendered_object_is_stored(release):
    assert release.rendered, "the release rendered nothing"
    assert len(release.objects) == len(release.rendered)
    stored = {cc.name_of(o) for o in release.objects}
    assert stored == {cc.name_of(o) for o in release.rendered}
    status = release.helm("status", release.name, "-o", "json").stdout
    assert json.loads(status)["info"]["status"] == "deployed"


def test_custom_resources_are_in_the_release(release):
    kinds = {o["kind"] for o in release.objects}
    assert {"ServiceMonitor", "PrometheusRule"} & kinds, kinds
    if release.scenario == "external":
        assert not {"Kafka", "KafkaNodePool", "KafkaTopic"} & kinds
    else:
        assert {"Kafka", "KafkaNodePool", "KafkaTopic"} <= kinds
    if "loadtest" in release.scenario:
        assert "TestRun" in kinds


def test_waiting_room_is_in_the_event_unless_switched_off(release):
    """Deployment, Service, HPA or fixed replicas, PDB, NetworkPolicy, ServiceMonitor; the API reads
    the entry key from the same Secret either way."""
    names = {(o["kind"], o["metadata"]["name"]) for o in release.objects}
    room = f"{release.name}-coupon-waiting-room"
    parts = {("Deployment", room), ("Service", room), ("NetworkPolicy", f"{release.name}-waiting-room")}
    api = next(o for o in cc.of_kind(release.objects, "Deployment") if o["metadata"]["name"].endswith("-coupon-api"))
    api_entry = [
        e
        for c in api["spec"]["template"]["spec"]["containers"]
        for e in c.get("env", [])
        if e["name"] == "COUPON_ENTRY_SECRET"
    ]
    assert len(api_entry) == 1, "the API reads the entry key whether or not the waiting room is on"
    if release.scenario == "no-waiting-room":
        assert not parts & names, parts & names
        assert not [(k, n) for k, n in names if n in (room, f"{release.name}-waiting-room")], names
        return
    assert parts <= names, parts - names
    if release.scenario not in ("no-autoscaling", "example-dev"):
        assert {("HorizontalPodAutoscaler", room), ("PodDisruptionBudget", room)} <= names
    if "ServiceMonitor" in {k for k, _ in names}:
        assert ("ServiceMonitor", room) in names
    deploy = next(o for o in cc.of_kind(release.objects, "Deployment") if o["metadata"]["name"] == room)
    room_entry = [
        e
        for c in deploy["spec"]["template"]["spec"]["containers"]
        for e in c.get("env", [])
        if e["name"] == "COUPON_ENTRY_SECRET"
    ]
    assert room_entry == api_entry, "the waiting room signs with the key the API checks"


def test_entry_key_survives_upgrades_and_toggling_the_waiting_room(chart):
    """The generated entry key is read back with lookup on every upgrade: switching the waiting room
    off and on again keeps the key, so tokens in flight and the API's copy stay valid."""
    r = Release("entry-key", chart, [])
    create_namespace_with_secrets(r.ns, external_secrets(chart, []))
    base = values_args(chart, [])

    def key():
        return kubectl_json("get", "secret", f"{r.name}-entry", "--namespace", r.ns)["data"]["entry-secret"]

    r.helm("install", r.name, str(chart), *base, "--no-hooks", timeout=300)
    first = key()
    assert len(first) >= 80
    r.helm("upgrade", r.name, str(chart), *base, "--set", "couponWaitingRoom.enabled=false", "--no-hooks", timeout=300)
    off = {cc.name_of(o) for o in r.live(r.manifest())}
    assert not any(n.endswith("-coupon-waiting-room") for n in off), off
    assert key() == first
    r.helm("upgrade", r.name, str(chart), *base, "--set", "couponWaitingRoom.enabled=true", "--no-hooks", timeout=300)
    assert any(n.endswith("-coupon-waiting-room") for n in {cc.name_of(o) for o in r.live(r.manifest())})
    assert key() == first
    r.helm("uninstall", r.name, timeout=300)


def test_reinstall_over_leftover_kafka_volumes_is_refused(chart):
    """deleteClaim: false keeps the brokers' volumes after helm uninstall; a new Kafka of the same
    name on them crash-loops on "Invalid cluster.id" (strimzi issues 10722, 11516). helm install
    refuses while such claims exist and says how to go on; upgrades are not affected."""
    r = Release("reinstall", chart, [])
    create_namespace_with_secrets(r.ns, external_secrets(chart, []))
    base = values_args(chart, [])
    claim = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {
            "name": f"data-0-{r.name}-kafka-kafka-0",
            "namespace": r.ns,
            "labels": {"strimzi.io/cluster": f"{r.name}-kafka", "strimzi.io/kind": "Kafka"},
        },
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }
    kubectl("apply", "--server-side", "--field-manager=chart-test", "-f", "-", input=json.dumps(claim))
    refused = r.helm("install", r.name, str(chart), *base, "--no-hooks", timeout=300, check=False)
    assert refused.returncode != 0, "installed over a previous event's Kafka volumes"
    assert "leftover Kafka volumes" in refused.stderr and "delete pvc -l strimzi.io/cluster=" in refused.stderr, (
        refused.stderr
    )
    kubectl("delete", "pvc", "-l", f"strimzi.io/cluster={r.name}-kafka", "--namespace", r.ns, "--wait=false")
    # No kube-controller-manager here: drop the pvc-protection finalizer as its controller would for
    # a claim no pod uses.
    kubectl(
        "patch",
        "pvc",
        claim["metadata"]["name"],
        "--namespace",
        r.ns,
        "--type=merge",
        "-p",
        '{"metadata":{"finalizers":null}}',
    )
    assert not kubectl_json("get", "pvc", "--namespace", r.ns)["items"]
    r.helm("install", r.name, str(chart), *base, "--no-hooks", timeout=300)
    # An upgrade of the running event, whose own claims exist, goes through.
    kubectl("apply", "--server-side", "--field-manager=chart-test", "-f", "-", input=json.dumps(claim))
    r.helm("upgrade", r.name, str(chart), *base, "--no-hooks", timeout=300)
    r.helm("uninstall", r.name, timeout=300)


def test_upgrade_keeps_the_kafka_layout(chart):
    """Strimzi does not move a running cluster's KRaft quorum between one pool dual-role and dedicated
    controllers (decision 0050): an upgrade whose values ask for the other layout than the
    KafkaNodePools the release runs is refused at render time (templates/validate.yaml), saying
    what to do, as an event installed by an earlier chart meets the new default; keeping it works."""
    r = Release("layout", chart, [])
    create_namespace_with_secrets(r.ns, external_secrets(chart, []))
    base = values_args(chart, [])
    keep = ("--set", "kafka.strimzi.controllers.dedicated=false")
    r.helm("install", r.name, str(chart), *base, *keep, "--no-hooks", timeout=300)
    pools = {o["metadata"]["name"] for o in cc.of_kind(r.live(r.manifest()), "KafkaNodePool")}
    assert pools == {"dual-role"}, pools
    refused = r.helm("upgrade", r.name, str(chart), *base, "--no-hooks", timeout=300, check=False)
    assert refused.returncode != 0, "upgraded a dual-role Kafka to dedicated controllers"
    assert 'runs on the KafkaNodePool "dual-role"' in refused.stderr, refused.stderr
    assert "--set kafka.strimzi.controllers.dedicated=false" in refused.stderr, refused.stderr
    pools = {o["metadata"]["name"] for o in cc.of_kind(r.live(r.manifest()), "KafkaNodePool")}
    assert pools == {"dual-role"}, pools
    r.helm("upgrade", r.name, str(chart), *base, *keep, "--no-hooks", timeout=300)
    r.helm("uninstall", r.name, timeout=300)


def test_events_share_no_dashboard_file_or_rule_group(chart):
    """Grafana's dashboard sidecar writes every labelled ConfigMap's data keys as files of one
    folder, and Prometheus evaluates every PrometheusRule it selects. Two events must not ship the
    same file (uninstalling one would remove the other's dashboards) nor the same rule group (N
    events would record every series N times): dashboards and rules belong to the platform."""
    twins = [Release(f"twin-{x}", chart, []) for x in "ab"]
    files: list[set[str]] = []
    groups: list[set[str]] = []
    for r in twins:
        create_namespace_with_secrets(r.ns, external_secrets(chart, []))
        r.helm("install", r.name, str(chart), *values_args(chart, []), "--no-hooks", timeout=300)
        objects = r.live(r.manifest())
        files.append(
            {
                key
                for o in cc.of_kind(objects, "ConfigMap")
                if "grafana_dashboard" in o["metadata"].get("labels", {})
                for key in o.get("data", {})
            }
        )
        groups.append({g["name"] for o in cc.of_kind(objects, "PrometheusRule") for g in o["spec"]["groups"]})
    for r in twins:
        r.helm("uninstall", r.name, timeout=300)
    assert not files[0] & files[1], f"dashboard files both events write: {sorted(files[0] & files[1])}"
    assert not groups[0] & groups[1], f"rule groups both events evaluate: {sorted(groups[0] & groups[1])}"


def test_platform_monitoring_is_stored_once(cluster):
    """operators/monitoring.sh renders the dashboards and rules once per cluster: one ConfigMap per
    dashboard file in Prometheus's namespace, dashboard UIDs unique, one PrometheusRule holding
    every group of monitoring/rules/; applying it twice changes nothing."""
    kubectl("create", "namespace", "monitoring", check=False)
    rendered = run(["bash", str(ROOT / "operators" / "monitoring.sh")]).stdout
    docs = load_yaml_all(rendered)
    for _ in range(2):
        kubectl("apply", "--server-side", "--field-manager=coupon-event-platform", "-f", "-", input=rendered)
    stored = {
        (o["kind"], o["metadata"]["name"]): o
        for o in kubectl_json(
            "get",
            "configmaps,prometheusrules",
            "--namespace",
            "monitoring",
            "-l",
            "app.kubernetes.io/part-of=coupon-event",
        )["items"]
    }
    assert len(stored) == len(docs), sorted(stored)
    dashboards = sorted(p.name for p in (ROOT / "dashboards").glob("*.json"))
    shipped = sorted(
        k
        for o in stored.values()
        if o["kind"] == "ConfigMap" and o["metadata"]["labels"].get("grafana_dashboard") == "1"
        for k in o["data"]
    )
    assert shipped == dashboards
    uids = [
        json.loads(text).get("uid") for o in stored.values() if o["kind"] == "ConfigMap" for text in o["data"].values()
    ]
    assert len(set(uids)) == len(uids) and None not in uids, uids
    rule_groups = sorted(
        g["name"]
        for p in sorted((ROOT / "monitoring" / "rules").glob("*.yaml"))
        for g in load_yaml_all(p.read_text())[0]["groups"]
    )
    stored_groups = sorted(
        g["name"] for o in stored.values() if o["kind"] == "PrometheusRule" for g in o["spec"]["groups"]
    )
    assert stored_groups == rule_groups
    assert all(
        o["metadata"]["labels"].get("release") == "kube-prometheus-stack"
        for o in stored.values()
        if o["kind"] == "PrometheusRule"
    )


# ------------------------------------------------------------------------------------ workloads


def test_workloads_have_resources(release):
    assert cc.check_resources(release.objects) == []


def test_workloads_have_probes(release):
    assert cc.of_kind(release.objects, "Deployment"), "no Deployments"
    assert cc.check_probes(release.objects) == []


def test_workloads_run_as_non_root(release):
    assert cc.check_non_root(release.objects) == []


def test_workloads_have_a_pdb(release):
    if release.scenario in ("no-autoscaling", "example-dev"):
        pytest.skip("dev values switch the PodDisruptionBudgets off on purpose (single replica)")
    assert cc.check_pdbs(release.objects) == []


def test_placement_matches_the_cluster(release):
    pools = cc.cluster_pools(ROOT / "k8s" / "eksctl-cluster.yaml")
    classes = cc.priority_classes(ROOT / "k8s" / "priorityclasses.yaml")
    assert cc.check_placement(release.objects, pools, classes) == []


# ------------------------------------------------------------------------------------ Kafka + KEDA


def test_partitions_cover_consumer_parallelism(release):
    topics = cc.issuance_topics(release.objects)
    if release.scenario == "external":
        assert topics == []
        pytest.skip("external Kafka: the topic is not managed by the release")
    assert len(topics) == 1
    assert cc.check_partitions(release.objects) == []


def test_min_insync_replicas_below_replication_factor(release):
    assert cc.check_min_isr(release.objects) == []


def test_no_consumer_replicas_while_keda_scales_it(release):
    deploy = cc.consumer_deployment(release.rendered)
    assert deploy is not None
    scaled, _ = cc.scalers_of(release.rendered, deploy)
    if release.scenario in ("no-autoscaling", "example-dev"):
        assert scaled == [] and "replicas" in deploy["spec"]
    else:
        assert len(scaled) == 1, "the consumer must be scaled by one ScaledObject"
    assert cc.check_no_replicas_under_keda(release.rendered) == []
    assert cc.check_scale_targets_exist(release.objects) == []


def test_monitors_select_release_objects(release):
    assert cc.check_monitors_select_something(release.objects) == []


# ------------------------------------------------------------------------------------ references


def test_every_secret_and_configmap_reference_resolves(release):
    available = release.namespace_objects("Secret", "ConfigMap")
    hooks = load_yaml_all(release.helm("get", "hooks", release.name).stdout)
    problems = cc.check_refs_resolve(release.objects, available)
    # Hook Jobs are not installed (--no-hooks) but run in the same namespace: their references too.
    problems += cc.check_refs_resolve(hooks, available)
    assert problems == []


def test_env_references_are_defined_before_use(release):
    hooks = load_yaml_all(release.helm("get", "hooks", release.name).stdout)
    assert cc.check_env_expansions([*release.objects, *hooks]) == []
    if release.scenario == "external":
        # MSK with SASL: the services' login expands the user and password from the Secret.
        refs = {
            ref
            for _, var, ref in cc.env_expansions(release.objects)
            if var == "SPRING_KAFKA_PROPERTIES_SASL_JAAS_CONFIG"
        }
        assert refs == {"KAFKA_SASL_USERNAME", "KAFKA_SASL_PASSWORD"}


def test_hooks_pass_server_side_validation(release):
    hooks = load_yaml_all(release.helm("get", "hooks", release.name).stdout)
    kinds = {h["kind"] for h in hooks}
    assert "Job" in kinds, f"no hook Jobs (migrate/register) rendered: {kinds}"
    for h in hooks:
        assert "helm.sh/hook" in h["metadata"].get("annotations", {}), cc.name_of(h)
    out = kubectl(
        "apply",
        "--dry-run=server",
        "--namespace",
        release.ns,
        "-f",
        "-",
        input="\n---\n".join(json.dumps(h) for h in hooks),
        timed=f"hooks dry-run=server {release.scenario}",
    ).stdout
    assert out.count("(server dry run)") == len(hooks), out
    problems = cc.check_resources(hooks) + cc.check_non_root(hooks)
    assert problems == []


def test_verification_job_may_read_its_run_and_write_its_verdict_only(release):
    """The load test's verification Job, judged by the server's own RBAC authorizer: get on its
    TestRun and runner Jobs, patch on its verdict ConfigMap, and nothing else."""
    if "loadtest" not in release.scenario:
        pytest.skip("no load test, no verification Job")
    job = next(
        o
        for o in cc.of_kind(release.objects, "Job")
        if o["metadata"]["labels"].get("app.kubernetes.io/component") == "verify"
    )
    env = {e["name"]: e.get("value") for e in job["spec"]["template"]["spec"]["containers"][0]["env"]}
    run, verdict = env["COUPON_VERIFY_TESTRUN"], env["COUPON_VERIFY_CONFIGMAP"]
    assert {cc.name_of(o) for o in release.objects} >= {f"TestRun/{run}", f"ConfigMap/{verdict}"}
    sa = f"system:serviceaccount:{release.ns}:{job['spec']['template']['spec']['serviceAccountName']}"

    def can(*args):
        out = kubectl("auth", "can-i", *args, "--namespace", release.ns, "--as", sa, check=False)
        return out.stdout.strip() == "yes"

    allowed = [("get", f"testruns.k6.io/{run}"), ("get", f"jobs.batch/{run}-1"), ("patch", f"configmaps/{verdict}")]
    denied = [
        ("list", "testruns.k6.io"),
        ("get", "testruns.k6.io/another-run"),
        ("delete", f"testruns.k6.io/{run}"),
        ("create", "jobs.batch"),
        ("get", "jobs.batch/another-job"),
        ("create", "configmaps"),
        ("patch", f"configmaps/{release.name}-event"),
        ("get", "secrets"),
        ("list", "pods"),
    ]
    assert [a for a in allowed if not can(*a)] == [], "the Job lacks what it needs"
    assert [d for d in denied if can(*d)] == [], "the Job may do more than it needs"


# ------------------------------------------------------------------------------------ lifecycle


def chart_with_new_default(chart: Path, dest: Path, old: str, new: str) -> Path:
    """A copy of the chart whose values.yaml has one default changed: the next chart version."""
    import shutil

    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(chart, dest)
    values = dest / "values.yaml"
    text = values.read_text()
    assert text.count(old) == 1, old
    values.write_text(text.replace(old, new))
    return dest


def test_upgrade_changes_the_stored_objects(chart):
    """install -> upgrade with changed values -> the upgrade the docs and NOTES give
    (--reset-then-reuse-values) with a newer chart -> back to the defaults -> uninstall."""
    r = Release("lifecycle", chart, [])
    create_namespace_with_secrets(r.ns, external_secrets(chart, []))
    base = values_args(chart, [])
    r.helm("install", r.name, str(chart), *base, "--no-hooks", timed="install", timeout=300)
    before = {cc.name_of(o): o for o in r.live(r.manifest())}
    assert "TestRun" not in {o["kind"] for o in before.values()}

    changed = [
        *base,
        "-f",
        str(chart / "examples" / "black-friday.yaml"),
        "-f",
        str(chart / "examples" / "loadtest.yaml"),
    ]
    r.helm("upgrade", r.name, str(chart), *changed, "--no-hooks", timed="upgrade", timeout=300)
    after_objs = r.live(r.manifest())
    assert "TestRun" in {o["kind"] for o in after_objs}, "the load test was switched on"
    scaled, _ = cc.scalers_of(after_objs, cc.consumer_deployment(after_objs))
    assert len(scaled) == 1 and scaled[0]["spec"]["maxReplicaCount"] == 8
    topic = cc.issuance_topics(after_objs)[0]
    assert topic["spec"]["partitions"] >= 32
    old_topic = before[cc.name_of(topic)]
    assert topic["spec"]["partitions"] > old_topic["spec"]["partitions"]
    assert cc.check_partitions(after_objs) == []

    # The next run, as NOTES.txt and docs/kubernetes.md say, with a newer chart whose default
    # retention changed: the user's values are kept and the new default applies.
    newer = chart_with_new_default(
        chart, CHART_COPY.parent / "coupon-event-next", "retentionMs: 604800000", "retentionMs: 259200000"
    )
    r.helm(
        "upgrade",
        r.name,
        str(newer),
        "--reset-then-reuse-values",
        "--set",
        "loadtest.runId=qa-2",
        "--no-hooks",
        timed="upgrade --reset-then-reuse-values",
        timeout=300,
    )
    reused = r.live(r.manifest())
    names = {cc.name_of(o) for o in reused}
    assert any(n.endswith("-k6-qa-2") for n in names), names
    assert not any(n.endswith("-k6-qa-1") for n in names), "the old TestRun stays after a new runId"
    assert any(n.endswith("-verdict-qa-2") for n in names), names
    assert not any("-verdict-qa-1" in n or "-verify-qa-1-" in n for n in names), "the old run's verdict stays"
    scaled, _ = cc.scalers_of(reused, cc.consumer_deployment(reused))
    assert scaled[0]["spec"]["maxReplicaCount"] == 8, "the values of the last release were not reused"
    topic = cc.issuance_topics(reused)[0]
    assert topic["spec"]["config"]["retention.ms"] == 259200000, "the newer chart's default was ignored"

    # Back to the defaults (4 consumers x 3 threads = 12): the topic keeps its 32 partitions,
    # read from the server with lookup; Kafka cannot remove partitions.
    r.helm(
        "upgrade", r.name, str(chart), *base, "--reset-values", "--no-hooks", timed="upgrade to defaults", timeout=300
    )
    shrunk = r.live(r.manifest())
    scaled, _ = cc.scalers_of(shrunk, cc.consumer_deployment(shrunk))
    assert scaled[0]["spec"]["maxReplicaCount"] == 4
    assert cc.issuance_topics(shrunk)[0]["spec"]["partitions"] == topic["spec"]["partitions"]
    refused = r.helm(
        "upgrade",
        r.name,
        str(chart),
        *base,
        "--set",
        "kafka.topic.partitions=12",
        "--no-hooks",
        check=False,
        timeout=300,
    )
    assert refused.returncode != 0 and "Kafka cannot remove partitions" in refused.stderr, refused.stderr
    history = json.loads(r.helm("history", r.name, "-o", "json").stdout)
    assert [h["revision"] for h in history][:4] == [1, 2, 3, 4] and history[3]["status"] == "deployed"

    # helm rollback re-applies a stored manifest (no lookup), which would shrink the KafkaTopic;
    # the way back is uninstall.
    r.helm("uninstall", r.name, timed="uninstall", timeout=300)
    left = r.leftovers([*after_objs, *reused])
    assert left == [], f"objects left after helm uninstall: {left}"


def test_reuse_values_would_ignore_the_newer_default(chart):
    """The negative twin: plain --reuse-values keeps the old chart's defaults (why the docs do not
    use it), so the check above can tell the two apart."""
    r = Release("reuse-values", chart, [])
    create_namespace_with_secrets(r.ns, external_secrets(chart, []))
    r.helm("install", r.name, str(chart), *values_args(chart, []), "--no-hooks", timeout=300)
    newer = chart_with_new_default(
        chart, CHART_COPY.parent / "coupon-event-next-reuse", "retentionMs: 604800000", "retentionMs: 259200000"
    )
    r.helm("upgrade", r.name, str(newer), "--reuse-values", "--no-hooks", timeout=300)
    topic = cc.issuance_topics(r.live(r.manifest()))[0]
    assert topic["spec"]["config"]["retention.ms"] == 604800000
    r.helm("uninstall", r.name, timeout=300)


def test_schema_rejects_a_misspelled_key_on_the_server(chart):
    ns = "ev-misspelled"
    create_namespace_with_secrets(ns, external_secrets(chart, []))
    proc = helm(
        "install",
        "ev-misspelled",
        str(chart),
        *values_args(chart, []),
        "--set",
        "evnet.coupons=1",
        "--dry-run=server",
        "--namespace",
        ns,
        check=False,
    )
    assert proc.returncode != 0
    assert "evnet" in proc.stderr
    status = helm("status", "ev-misspelled", "--namespace", ns, check=False)
    assert status.returncode != 0 and "not found" in status.stderr, "a refused install left a release record"


def test_server_rejects_an_invalid_custom_resource(release):
    """The CRD schemas are really enforced: a KafkaTopic with a string partition count is refused."""
    if release.scenario != "defaults":
        pytest.skip("checked once")
    topic = cc.issuance_topics(release.objects)[0]
    bad = {
        "apiVersion": topic["apiVersion"],
        "kind": "KafkaTopic",
        "metadata": {"name": "bad-topic", "namespace": release.ns, "labels": topic["metadata"]["labels"]},
        "spec": {"partitions": "twelve", "replicas": 3},
    }
    proc = kubectl("apply", "--dry-run=server", "-f", "-", input=json.dumps(bad), check=False)
    assert proc.returncode != 0 and "partitions" in proc.stderr
