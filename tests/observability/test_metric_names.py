"""Every metric a dashboard or rule reads must exist: recording rules defined here, exporter/k6/
kube-state-metrics names pinned in monitoring/exporter-metrics.txt, and our services' names on their
real /actuator/prometheus (test_live_metrics.py)."""

import re
import textwrap

import yaml
from conftest import ROOT, exporter_metrics, referenced_metrics

from promql import metric_names

# Name prefixes of meters our services publish (contract: coupon_* plus Spring Boot/Micrometer).
SERVICE_PREFIXES = (
    "coupon_",
    "jvm_",
    "process_",
    "system_",
    "http_server_",
    "hikaricp_",
    "kafka_producer_",
    "kafka_consumer_",
    "lettuce_",
    "executor_",
    "spring_kafka_",
)


def is_service_metric(name):
    return name.startswith(SERVICE_PREFIXES) and not name.startswith("kafka_consumergroup")


def test_exporter_list_has_a_source_for_every_name():
    names = exporter_metrics()
    assert len(names) > 30
    for name, source in names.items():
        assert source, f"{name} has no `# source:` line above it"
        assert not is_service_metric(name), f"{name} belongs to our services, not to the exporter list"


def test_every_referenced_metric_has_a_known_origin(rules, dashboards):
    recorded = {r["record"] for _, r in rules if "record" in r}
    pinned = exporter_metrics()
    unknown = {
        n: w
        for n, w in referenced_metrics(rules, dashboards).items()
        if n not in recorded and n not in pinned and not is_service_metric(n)
    }
    assert not unknown, "metrics of unknown origin (pin them in monitoring/exporter-metrics.txt): " + repr(unknown)


def test_recording_rules_used_are_defined(rules, dashboards):
    recorded = {r["record"] for _, r in rules if "record" in r}
    used = {n for n in referenced_metrics(rules, dashboards) if ":" in n}
    assert used <= recorded, used - recorded


def test_pinned_exporter_names_are_all_used(rules, dashboards):
    """The pinned list is the exporters' side of the contract: no dead entries."""
    unused = set(exporter_metrics()) - set(referenced_metrics(rules, dashboards))
    assert not unused, f"pinned but never read: {sorted(unused)}"


def test_tokenizer_finds_names_and_skips_labels_and_functions():
    expr = (
        'sum by (namespace, le) (rate(a_bucket{namespace="x", le=~"0.1"}[5m])) / on (namespace) '
        "group_left (pod) max without (instance) (b) unless c offset 5m and d:e:f > bool 1e3"
    )
    assert metric_names(expr) == {"a_bucket", "b", "c", "d:e:f"}


def jmx_rule_outputs():
    """Names the chart's JMX exporter rules can emit: each `$1` expanded over the alternatives of
    the pattern's first group, lower-cased as `lowercaseOutputName: true` does."""
    text = (ROOT / "templates" / "kafka-metrics-configmap.yaml").read_text()
    # the exporter config is the literal block under the key; the rest of the file is templated
    block = text.split("kafka-metrics-config.yml: |\n", 1)[1]
    block = "\n".join(line for line in block.splitlines() if not line.lstrip().startswith("{{"))
    config = yaml.safe_load(textwrap.dedent(block))
    assert config["lowercaseOutputName"] is True
    names = set()
    for rule in config["rules"]:
        groups = re.findall(r"\(([^()]*)\)", rule["pattern"])
        alternatives = groups[0].split("|") if groups and "$1" in rule["name"] else [""]
        names |= {rule["name"].replace("$1", a).lower() for a in alternatives}
    return names


def test_chart_jmx_rules_emit_the_pinned_broker_names():
    """The brokers' names the dashboards read (Strimzi's naming) come out of the chart's rules."""
    broker = {n for n in exporter_metrics() if n.startswith(("kafka_server_", "kafka_controller_"))}
    assert broker, "no broker metrics pinned"
    missing = broker - jmx_rule_outputs()
    assert not missing, f"pinned broker metrics no JMX rule of the chart emits: {sorted(missing)}"
