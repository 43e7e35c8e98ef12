"""Shared fixtures of the observability tests: repository paths, rule files, dashboards, pinned names."""

import json
import os
import pathlib
import shutil

import pytest
import yaml

from promql import grafana_to_promql, metric_names, variable_query_selector

ROOT = pathlib.Path(__file__).resolve().parents[2]

RULE_FILES = sorted((ROOT / "monitoring" / "rules").glob("*.yaml"))
DASHBOARD_FILES = sorted((ROOT / "dashboards").glob("*.json"))


def promtool():
    path = shutil.which("promtool", path=f"{ROOT / '.tools' / 'bin'}:{os.environ.get('PATH', '')}")
    if not path:
        pytest.fail("promtool not found: run scripts/tools.sh promtool")
    return path


@pytest.fixture(scope="session")
def rules():
    """Every rule of every rule file, with the file it came from."""
    out = []
    for f in RULE_FILES:
        for group in yaml.safe_load(f.read_text())["groups"]:
            for rule in group["rules"]:
                out.append((f.name, rule))
    return out


@pytest.fixture(scope="session")
def dashboards():
    return {f.name: json.loads(f.read_text()) for f in DASHBOARD_FILES}


def dashboard_queries(dashboard):
    """(where, PromQL) of every panel target and every variable query of a dashboard."""
    out = []
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            out.append((f"panel {panel['id']} {panel['title']!r} {target['refId']}", target["expr"]))
    for var in dashboard["templating"]["list"]:
        if var["type"] == "query":
            selector = variable_query_selector(var["definition"])
            if selector:
                out.append((f"variable {var['name']}", selector))
    return out


def exporter_metrics():
    """Pinned exporter/k6/kube-state-metrics names -> the source comment above them."""
    names, source = {}, None
    for line in (ROOT / "monitoring" / "exporter-metrics.txt").read_text().splitlines():
        line = line.strip()
        if line.startswith("# source:"):
            source = line[len("# source:") :].strip()
        elif line and not line.startswith("#"):
            names[line.split()[0]] = source
    return names


def referenced_metrics(rules, dashboards):
    """metric name -> where it is read, over all rules and dashboards."""
    refs = {}
    for fname, rule in rules:
        for name in metric_names(rule["expr"]):
            refs.setdefault(name, []).append(f"{fname}: {rule.get('alert') or rule.get('record')}")
    for fname, dashboard in dashboards.items():
        for where, expr in dashboard_queries(dashboard):
            for name in metric_names(grafana_to_promql(expr)):
                refs.setdefault(name, []).append(f"{fname}: {where}")
    return refs
