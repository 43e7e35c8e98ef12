"""platform-schemas: our platform files against the upstream JSON schemas in shared/schemas, and,
for the upstream charts that publish no schema, against pinned lists of the keys they accept."""

from __future__ import annotations

import copy
import ipaddress
import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

from kube import CRDS, ROOT, SHARED, load_yaml

SCHEMAS = SHARED / "schemas"
KEYS_DIR = Path(__file__).parent / "upstream-keys"
POOLS = {"system", "app", "kafka", "loadgen"}
POOL_LABEL = "coupon-event.io/pool"


def validator(schema_path: Path) -> jsonschema.Draft7Validator:
    # Every schema here is draft-07 (mysql's says only "schema#": draft 7 is what it was written for).
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    return jsonschema.Draft7Validator(schema)


def errors(v: jsonschema.Draft7Validator, doc) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in v.iter_errors(doc)]


# ---------------------------------------------------------------------------------- skaffold


@pytest.fixture(scope="module")
def skaffold():
    return load_yaml(ROOT / "skaffold.yaml")


@pytest.fixture(scope="module")
def skaffold_schema():
    return validator(SCHEMAS / "skaffold" / "v4beta14.json")


def test_skaffold_matches_v4beta14_schema(skaffold, skaffold_schema):
    assert skaffold["apiVersion"] == "skaffold/v4beta14"  # the schema itself does not pin it
    assert errors(skaffold_schema, skaffold) == []


def test_skaffold_schema_rejects_a_misspelled_key(skaffold, skaffold_schema):
    broken = copy.deepcopy(skaffold)
    broken["deploy"]["helm"]["relases"] = broken["deploy"]["helm"].pop("releases")
    assert errors(skaffold_schema, broken), "a misspelled key must not pass the schema"


def test_skaffold_builds_every_service_with_jib(skaffold):
    artifacts = {a["image"]: a for a in skaffold["build"]["artifacts"]}
    assert set(artifacts) == {"coupon-api", "coupon-consumer", "coupon-waiting-room"}
    for name, a in artifacts.items():
        assert a["context"] == "services"
        assert a["jib"]["project"] == name
        assert (ROOT / "services" / name).is_dir(), f"services/{name} is missing"
        assert "docker" not in a


SKAFFOLD_MINIMUM = "v2.19.0"  # first with skaffold/v4beta14 and the Helm >= 4.1 plugin fix


def test_skaffold_documents_the_minimum_version_for_this_config_and_helm_4():
    """shared/schemas/skaffold/VERSION: v4beta14 first shipped in v2.19.0, which also carries the
    Helm 4.1+ fix; skaffold.yaml and docs/kubernetes.md must name that minimum."""
    assert "first shipped in v2.19.0" in (SCHEMAS / "skaffold" / "VERSION").read_text()
    assert f"Skaffold {SKAFFOLD_MINIMUM} or newer" in (ROOT / "skaffold.yaml").read_text()
    assert f"Skaffold {SKAFFOLD_MINIMUM}" in (ROOT / "docs" / "kubernetes.md").read_text()


def test_skaffold_jib_builder_meets_the_plugin_it_runs():
    """Skaffold's jib builder requires jib-maven-plugin >= 1.4.0 (3.2.0 for cross-platform builds,
    pkg/skaffold/build/jib/maven.go) and passes the artifact's project as -Djib.containerize,
    which jib matches against the module's directory."""
    import xml.etree.ElementTree as ET

    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    version = ET.parse(ROOT / "services" / "pom.xml").findtext("m:properties/m:jib-maven-plugin.version", namespaces=ns)
    assert version and tuple(map(int, version.split("."))) >= (3, 2, 0), version
    modules = [m.text for m in ET.parse(ROOT / "services" / "pom.xml").findall("m:modules/m:module", ns)]
    for a in load_yaml(ROOT / "skaffold.yaml")["build"]["artifacts"]:
        assert a["jib"]["project"] in modules, a["jib"]["project"]


def _sanitized(image: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", image)


def test_skaffold_hands_the_built_images_to_the_chart(skaffold, chart_dir):
    release = skaffold["deploy"]["helm"]["releases"][0]
    assert release["chartPath"] == "."
    templates = release["setValueTemplates"]
    # Value paths go through the component's values key (templates/_components.tpl).
    components = _components(chart_dir)
    values = load_yaml(chart_dir / "values.yaml")
    for image in ("coupon-api", "coupon-consumer", "coupon-waiting-room"):
        key = components[image]["valuesKey"]
        repo_key, tag_key = f"{key}.image.repository", f"{key}.image.tag"
        assert templates[repo_key] == f"{{{{.IMAGE_REPO_{_sanitized(image)}}}}}"
        assert f"{{{{.IMAGE_TAG_{_sanitized(image)}}}}}" in templates[tag_key]
        # The path must exist in the chart's values, or helm would silently ignore it.
        assert "repository" in values[key]["image"] and "tag" in values[key]["image"], image
    keys = {c["valuesKey"] for c in components.values()}
    assert not [k for k in templates if k.split(".")[0] not in keys], "a value path outside the components"


def _components(chart_dir) -> dict:
    """The components map of templates/_components.tpl (a YAML body inside a define)."""
    text = (chart_dir / "templates" / "_components.tpl").read_text()
    body = re.search(r'define "coupon-event.components" -}}\n(.*?)\n{{- end', text, re.S).group(1)
    return yaml.safe_load(body)


def test_skaffold_profiles_point_at_existing_values(skaffold, chart_dir):
    names = {p["name"] for p in skaffold["profiles"]}
    assert {"dev", "event"} <= names
    for profile in skaffold["profiles"]:
        for patch in profile.get("patches", []):
            if patch["path"].endswith("/valuesFiles"):
                for f in patch["value"]:
                    default = re.search(r'"([^"]+\.yaml)"', f)
                    path = default.group(1) if default else f
                    assert (chart_dir / path).is_file(), f"profile {profile['name']}: {path} missing"


# ---------------------------------------------------------------------------------- eksctl


@pytest.fixture(scope="module")
def cluster():
    return load_yaml(ROOT / "k8s" / "eksctl-cluster.yaml")


def test_eks_cluster_matches_eksctl_schema(cluster):
    assert errors(validator(SCHEMAS / "eksctl" / "schema.json"), cluster) == []


def test_eksctl_schema_rejects_a_misspelled_key(cluster):
    broken = copy.deepcopy(cluster)
    broken["managedNodeGroups"][0]["desiredCapasity"] = 2
    assert errors(validator(SCHEMAS / "eksctl" / "schema.json"), broken)


def test_eks_node_pools_have_labels_and_taints(cluster):
    groups = {g["labels"][POOL_LABEL]: g for g in cluster["managedNodeGroups"]}
    assert set(groups) == POOLS
    for pool, g in groups.items():
        taints = g.get("taints", [])
        if pool in ("kafka", "loadgen"):
            # The schema leaves the effect a free string: check it here.
            assert taints == [{"key": POOL_LABEL, "value": pool, "effect": "NoSchedule"}], pool
        else:
            assert taints == [], pool
        assert g["minSize"] <= g.get("desiredCapacity", g["minSize"]) <= g["maxSize"], pool
    assert groups["kafka"]["minSize"] >= 3, "three Kafka brokers need three kafka nodes"


def test_eks_has_the_ebs_csi_driver_the_storage_class_needs(cluster):
    sc = load_yaml(ROOT / "k8s" / "storageclass-gp3.yaml")
    assert sc["provisioner"] == "ebs.csi.aws.com"
    assert sc["volumeBindingMode"] == "WaitForFirstConsumer"
    assert sc["parameters"]["type"] == "gp3"
    assert "aws-ebs-csi-driver" in {a["name"] for a in cluster["addons"]}
    assert cluster["iam"]["withOIDC"] is True


def test_vpc_cni_enforces_network_policies(cluster):
    """Without the VPC CNI's network policy agent every NetworkPolicy of the chart (and Strimzi's
    listener policy) is stored but not enforced."""
    cni = next(a for a in cluster["addons"] if a["name"] == "vpc-cni")
    assert json.loads(cni["configurationValues"]).get("enableNetworkPolicy") == "true"


def test_enforced_policies_let_keda_read_the_brokers(cluster, chart_dir):
    """Turned on only together with the chart's peer for KEDA's operator (it reads the consumer
    group's lag from the brokers itself): the KEDA release's namespace and the operator pods'
    label in the KEDA chart (operator.name keda-operator, keda/templates/manager/deployment.yaml)."""
    peers = load_yaml(chart_dir / "values.yaml")["networkPolicy"]["kafkaClientsFrom"]
    keda_ns = pinned_releases()["keda"]["namespace"]
    assert {
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": keda_ns}},
        "podSelector": {"matchLabels": {"app.kubernetes.io/name": "keda-operator"}},
    } in peers
    assert "operator" not in (load_yaml(ROOT / "operators" / "values" / "keda.yaml") or {}), (
        "operator.name renamed: the chart's peer would miss KEDA's operator"
    )


def test_store_egress_default_covers_the_cluster_vpc(cluster):
    """networkPolicy.externalEgress (the default path to stores outside the release) must contain
    the VPC the cluster is created in; eksctl's VPC is 192.168.0.0/16 unless vpc.cidr says otherwise."""
    vpc = ipaddress.ip_network((cluster.get("vpc") or {}).get("cidr", "192.168.0.0/16"))
    blocks = [
        ipaddress.ip_network(p["ipBlock"]["cidr"])
        for p in load_yaml(ROOT / "values.yaml")["networkPolicy"]["externalEgress"]
        if "ipBlock" in p
    ]
    assert any(vpc.subnet_of(b) for b in blocks), f"VPC {vpc} outside the egress default {blocks}"


def test_region_is_one_parameter(cluster):
    """The region: metadata.region, and every availability zone of the cluster inside it."""
    region = cluster["metadata"]["region"]
    assert cluster["availabilityZones"] and all(z.startswith(region) for z in cluster["availabilityZones"])
    for g in cluster["managedNodeGroups"]:
        assert all(z.startswith(region) for z in g.get("availabilityZones", [])), g["name"]


def autoscaled_pools(cluster) -> list[dict]:
    return [g for g in cluster["managedNodeGroups"] if g["minSize"] < g["maxSize"]]


def test_cluster_autoscaler_can_manage_every_pool(cluster):
    ca = load_yaml(ROOT / "operators" / "values" / "cluster-autoscaler.yaml")
    assert pinned_releases()["cluster-autoscaler"]["namespace"] == "kube-system"
    assert ca["cloudProvider"] == "aws"
    assert ca["autoDiscovery"]["clusterName"] == cluster["metadata"]["name"]
    assert ca["awsRegion"] == cluster["metadata"]["region"]
    # The autoscaler's minor follows the cluster's (kubernetes/autoscaler README, releases).
    assert re.fullmatch(r"v(\d+\.\d+)\.\d+", ca["image"]["tag"]).group(1) == cluster["metadata"]["version"]
    # Its AWS permissions: a Pod Identity association for its service account.
    sa = ca["rbac"]["serviceAccount"]["name"]
    assocs = [
        a
        for a in cluster["iam"]["podIdentityAssociations"]
        if (a["namespace"], a["serviceAccountName"]) == ("kube-system", sa)
    ]
    assert len(assocs) == 1 and assocs[0]["wellKnownPolicies"]["autoScaler"] is True
    assert "eks-pod-identity-agent" in {a["name"] for a in cluster["addons"]}
    # Scale-up from 0 nodes needs the labels and taints as ASG tags (k8s.io/cluster-autoscaler/
    # node-template/...); eksctl writes them with propagateASGTags.
    pools = autoscaled_pools(cluster)
    assert {g["labels"][POOL_LABEL] for g in pools} == POOLS
    assert [g["name"] for g in pools if not g.get("propagateASGTags")] == []
    loadgen = next(g for g in pools if g["labels"][POOL_LABEL] == "loadgen")
    assert loadgen["minSize"] == 0 < loadgen["maxSize"]


def test_load_balancer_controller_can_serve_the_event_ingress(cluster):
    """The example event's Ingress (class alb) needs the controller of this cluster, in its region,
    with AWS permissions through a Pod Identity association for its service account."""
    lbc = load_yaml(ROOT / "operators" / "values" / "aws-load-balancer-controller.yaml")
    assert pinned_releases()["aws-load-balancer-controller"]["namespace"] == "kube-system"
    assert lbc["clusterName"] == cluster["metadata"]["name"]
    assert lbc["region"] == cluster["metadata"]["region"]
    sa = lbc["serviceAccount"]["name"]
    assocs = [
        a
        for a in cluster["iam"]["podIdentityAssociations"]
        if (a["namespace"], a["serviceAccountName"]) == ("kube-system", sa)
    ]
    assert len(assocs) == 1 and assocs[0]["wellKnownPolicies"]["awsLoadBalancerController"] is True
    event = load_yaml(ROOT / "examples" / "event.yaml")
    assert event["ingress"]["className"] == "alb"


def test_cluster_autoscaler_check_catches_a_pool_without_tags(cluster):
    broken = copy.deepcopy(cluster)
    broken["managedNodeGroups"][-1].pop("propagateASGTags")
    assert [g["name"] for g in autoscaled_pools(broken) if not g.get("propagateASGTags")] == ["loadgen"]


def test_priority_classes_order():
    import yaml

    docs = [d for d in yaml.safe_load_all((ROOT / "k8s" / "priorityclasses.yaml").read_text()) if d]
    value = {d["metadata"]["name"]: d["value"] for d in docs}
    assert value["coupon-event-critical"] > value["coupon-event-app"] > value["coupon-event-loadgen"]
    assert not any(d.get("globalDefault") for d in docs)


# ---------------------------------------------------------------------------------- operators


def pinned_releases() -> dict[str, dict]:
    releases = {}
    for line in (ROOT / "operators" / "versions.env").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, namespace, chart, version, repo = line.split("|")
        releases[name] = dict(namespace=namespace, chart=chart, version=version, repo=repo)
    return releases


def test_operator_versions_are_the_pinned_ones():
    r = pinned_releases()
    assert r["strimzi"]["chart"] == "strimzi-kafka-operator" and r["strimzi"]["version"] == "1.2.0"
    assert r["k6-operator"]["version"] == "4.6.0"
    keda_crds = (CRDS / "keda" / "VERSION").read_text()
    assert f"keda/v2@v{r['keda']['version']}" in keda_crds, "KEDA chart must match the CRDs (scripts/tools.sh crds)"
    assert re.fullmatch(r"\d+\.\d+\.\d+", r["kube-prometheus-stack"]["version"])
    assert list(r)[0] == "kube-prometheus-stack", "its ServiceMonitor CRD must come before the others"
    for name in r:
        assert (ROOT / "operators" / "values" / f"{name}.yaml").is_file(), name


def test_install_script_pins_every_chart():
    from kube import run

    out = run(["bash", str(ROOT / "operators" / "install.sh"), "--print"]).stdout
    for name, r in pinned_releases().items():
        line = next(x for x in out.splitlines() if f"upgrade --install {name} " in x)
        assert f"--version {r['version']}" in line and f"--repo {r['repo']}" in line, line
        assert f"operators/values/{name}.yaml" in line, line
    assert "k8s/priorityclasses.yaml" in out and "k8s/storageclass-gp3.yaml" in out


@pytest.fixture(scope="module")
def k6_operator_schema():
    return validator(SCHEMAS / "helm-values" / "k6-operator-4.6.0.values.schema.json")


def test_k6_operator_values_match_the_chart_schema(k6_operator_schema):
    values = load_yaml(ROOT / "operators" / "values" / "k6-operator.yaml")
    assert errors(k6_operator_schema, values) == []


def test_k6_operator_schema_rejects_a_misspelled_key(k6_operator_schema):
    values = load_yaml(ROOT / "operators" / "values" / "k6-operator.yaml")
    values["manager"]["replicaCount"] = values["manager"].pop("replicas")
    assert errors(k6_operator_schema, values)


def leaf_paths(tree, prefix=""):
    """Dotted paths of every leaf; empty maps and lists count as leaves."""
    if isinstance(tree, dict) and tree:
        for k, v in tree.items():
            yield from leaf_paths(v, f"{prefix}{k}.")
    else:
        yield prefix[:-1]


def known_keys(name: str) -> list[str]:
    lines = (KEYS_DIR / f"{name}.txt").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def unknown_paths(values: dict, allowed: list[str]) -> list[str]:
    # An allowed entry admits itself and everything below it (free-form maps such as resources).
    return [p for p in leaf_paths(values) if not any(p == a or p.startswith(a + ".") for a in allowed)]


@pytest.mark.parametrize(
    "release, keys",
    [
        ("strimzi", "strimzi-kafka-operator-1.2.0"),
        ("keda", "keda-2.20.2"),
        ("kube-prometheus-stack", "kube-prometheus-stack-88.5.3"),
        ("cluster-autoscaler", "cluster-autoscaler-9.59.0"),
        ("metrics-server", "metrics-server-3.13.0"),
        ("aws-load-balancer-controller", "aws-load-balancer-controller-3.5.0"),
    ],
)
def test_operator_values_use_only_known_keys(release, keys):
    values = load_yaml(ROOT / "operators" / "values" / f"{release}.yaml")
    assert unknown_paths(values, known_keys(keys)) == []


def test_known_keys_check_catches_a_misspelling():
    values = load_yaml(ROOT / "operators" / "values" / "kube-prometheus-stack.yaml")
    values["prometheus"]["prometheusSpec"]["enableRemoteWriteReciever"] = True
    assert unknown_paths(values, known_keys("kube-prometheus-stack-88.5.3")) == [
        "prometheus.prometheusSpec.enableRemoteWriteReciever"
    ]


def test_prometheus_accepts_remote_write_and_every_monitor():
    spec = load_yaml(ROOT / "operators" / "values" / "kube-prometheus-stack.yaml")["prometheus"]["prometheusSpec"]
    assert spec["enableRemoteWriteReceiver"] is True
    for kind in ("serviceMonitor", "podMonitor", "rule"):
        assert spec[f"{kind}SelectorNilUsesHelmValues"] is False, kind


def test_grafana_sidecar_watches_dashboards_everywhere():
    grafana = load_yaml(ROOT / "operators" / "values" / "kube-prometheus-stack.yaml")["grafana"]
    dashboards = grafana["sidecar"]["dashboards"]
    assert dashboards["enabled"] is True
    assert dashboards["label"] == "grafana_dashboard"
    assert dashboards["searchNamespace"] == "ALL"


def test_operators_run_on_system_nodes_with_known_priority_classes():
    import yaml

    classes = {
        d["metadata"]["name"] for d in yaml.safe_load_all((ROOT / "k8s" / "priorityclasses.yaml").read_text()) if d
    }
    for release in pinned_releases():
        text = (ROOT / "operators" / "values" / f"{release}.yaml").read_text()
        values = yaml.safe_load(text)
        assert f"{POOL_LABEL}: system" in text, release
        for p in leaf_paths(values):
            if p.endswith("priorityClassName"):
                v = values
                for k in p.split("."):
                    v = v[k]
                assert v in classes, f"{release}: {p}={v}"


def strimzi_kafka_versions() -> dict[str, str]:
    lines = (Path(__file__).parent / "strimzi-1.2.0-kafka-versions.txt").read_text().splitlines()
    return dict(line.split() for line in lines if line.strip() and not line.startswith("#"))


def version_key(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v))


def kafka_pin_problems(strimzi_values: dict) -> list[str]:
    supported = strimzi_kafka_versions()
    version, metadata = strimzi_values.get("version", ""), strimzi_values.get("metadataVersion", "")
    if version not in supported:
        return [f"kafka.strimzi.version {version!r} is not one Strimzi 1.2.0 supports: {sorted(supported)}"]
    # A metadata version the brokers understand: the version's own or an older supported one.
    allowed = {m for v, m in supported.items() if version_key(v) <= version_key(version)}
    if metadata not in allowed:
        return [f"kafka.strimzi.metadataVersion {metadata!r} does not fit Kafka {version}: {sorted(allowed)}"]
    return []


def test_kafka_version_and_metadata_are_pinned_to_supported_ones(chart_dir):
    """Left empty, Strimzi picks its own default and a Strimzi upgrade rolls the brokers."""
    assert kafka_pin_problems(load_yaml(chart_dir / "values.yaml")["kafka"]["strimzi"]) == []


def test_kafka_pin_check_rejects_an_unsupported_version():
    assert kafka_pin_problems({"version": "", "metadataVersion": ""})
    assert kafka_pin_problems({"version": "4.1.1", "metadataVersion": "4.1-IV1"})
    assert kafka_pin_problems({"version": "4.2.1", "metadataVersion": "4.3-IV0"})
    assert kafka_pin_problems({"version": "4.3.1", "metadataVersion": "4.2-IV1"}) == []


# ---------------------------------------------------------------------------------- chart deps


def chart_value_files(chart_dir: Path) -> list[Path]:
    return [
        chart_dir / "values.yaml",
        *sorted((chart_dir / "examples").glob("*.yaml")),
        *sorted((chart_dir / "tests" / "chart" / "fixtures").glob("*.yaml")),
    ]


@pytest.fixture(scope="module")
def mysql_schema():
    return validator(SCHEMAS / "helm-values" / "mysql-14.0.5.values.schema.json")


def test_chart_mysql_values_match_the_bitnami_schema(chart_dir, mysql_schema):
    checked = 0
    for f in chart_value_files(chart_dir):
        section = (load_yaml(f) or {}).get("mysql")
        if section is None:
            continue
        checked += 1
        assert errors(mysql_schema, section) == [], f.name
    assert checked >= 1, "no mysql: section in values.yaml or examples/"


def test_mysql_schema_rejects_a_wrong_type(mysql_schema):
    assert errors(mysql_schema, {"auth": {"database": 42}})


def test_chart_redis_cluster_values_use_only_known_keys(chart_dir):
    allowed = known_keys("redis-cluster-13.0.4")
    checked = 0
    for f in chart_value_files(chart_dir):
        section = (load_yaml(f) or {}).get("redis-cluster")
        if section is None:
            continue
        checked += 1
        assert unknown_paths(section, allowed) == [], f.name
    assert checked >= 1, "no redis-cluster: section in values.yaml or examples/"


def test_chart_mysql_values_use_only_known_keys(chart_dir):
    # The mysql schema is shallow (four properties, no additionalProperties): add the key list.
    allowed = known_keys("mysql-14.0.5")
    for f in chart_value_files(chart_dir):
        section = (load_yaml(f) or {}).get("mysql")
        if section is not None:
            assert unknown_paths(section, allowed) == [], f.name
