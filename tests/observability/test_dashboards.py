"""Dashboards: generated from monitoring/checks/build_dashboards.py, valid, portable, parseable PromQL."""

import re
import subprocess

import yaml
from conftest import DASHBOARD_FILES, dashboard_queries, grafana_to_promql, promtool

from build_dashboards import DASHBOARDS, render
from promql import selectors

REQUIRED = {"event-overview.json", "services.json", "load-test.json"}


def test_required_dashboards_exist(dashboards):
    assert set(dashboards) >= REQUIRED


def test_dashboards_match_their_generator():
    for f in DASHBOARD_FILES:
        assert f.name in DASHBOARDS, f"{f.name} is not produced by build_dashboards.py"
        assert f.read_text() == render(DASHBOARDS[f.name]), f"{f.name} is stale: run `make dashboards`"


def test_unique_panel_ids_and_uids(dashboards):
    uids = [d["uid"] for d in dashboards.values()]
    assert len(uids) == len(set(uids))
    for name, d in dashboards.items():
        ids = [p["id"] for p in d["panels"]]
        assert len(ids) == len(set(ids)), f"{name}: duplicate panel ids"
        assert all(isinstance(i, int) for i in ids)


def test_datasource_variable_used_everywhere(dashboards):
    for name, d in dashboards.items():
        variables = {v["name"]: v for v in d["templating"]["list"]}
        assert variables["datasource"]["type"] == "datasource"
        assert variables["datasource"]["query"] == "prometheus"
        for panel in d["panels"]:
            if panel["type"] == "row":
                continue
            assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}, (name, panel["title"])
            for t in panel["targets"]:
                assert t["datasource"]["uid"] == "${datasource}"


def test_namespace_variable_and_no_hard_coded_namespace(dashboards):
    for name, d in dashboards.items():
        variables = {v["name"] for v in d["templating"]["list"]}
        assert "namespace" in variables, name
        for where, expr in dashboard_queries(d):
            for m in re.finditer(r'namespace\s*(=~|!~|!=|=)\s*"([^"]*)"', expr):
                assert m.group(2) == "$namespace", f"{name} {where}: namespace {m.group(2)!r}"
            # Every series of our services and exporters is scoped to the event's namespace;
            # k6 series (remote-written by the load generator) carry no namespace.
            if where.startswith("variable namespace"):
                continue
            for metric, matchers in selectors(grafana_to_promql(expr)):
                if not metric.startswith("k6_"):
                    assert 'namespace="grafana_var"' in matchers, (
                        f"{name} {where}: {metric} is not scoped to $namespace"
                    )


def test_panels_fit_the_grid_without_overlap(dashboards):
    for name, d in dashboards.items():
        cells = set()
        for p in d["panels"]:
            g = p["gridPos"]
            assert g["x"] >= 0 and g["x"] + g["w"] <= 24, (name, p["title"])
            for x in range(g["x"], g["x"] + g["w"]):
                for y in range(g["y"], g["y"] + g["h"]):
                    assert (x, y) not in cells, f"{name}: {p['title']!r} overlaps"
                    cells.add((x, y))


def test_every_query_parses_as_promql(dashboards, tmp_path):
    """All targets and variable selectors, variables substituted, through `promtool check rules`."""
    rules, where = [], {}
    for name, d in dashboards.items():
        for w, expr in dashboard_queries(d):
            record = f"dashboard:query_{len(rules)}"
            rules.append({"record": record, "expr": grafana_to_promql(expr)})
            where[record] = f"{name} {w}"
    assert len(rules) > 50
    f = tmp_path / "dashboard-queries.yaml"
    f.write_text(yaml.safe_dump({"groups": [{"name": "dashboards", "rules": rules}]}))
    proc = subprocess.run([promtool(), "check", "rules", str(f)], capture_output=True, text=True)
    failing = [f"{where[r]}: {line}" for r in where for line in (proc.stdout + proc.stderr).splitlines() if r in line]
    assert proc.returncode == 0, "\n".join(failing) or proc.stdout + proc.stderr
    assert f"SUCCESS: {len(rules)} rules found" in proc.stdout


def test_promql_check_catches_a_broken_query(tmp_path):
    """The parse check above must be able to fail."""
    f = tmp_path / "broken.yaml"
    f.write_text(
        yaml.safe_dump(
            {
                "groups": [
                    {
                        "name": "x",
                        "rules": [
                            {
                                "record": "dashboard:broken",
                                "expr": grafana_to_promql('sum(rate(x{namespace="$namespace"}[$__rate_interval])'),
                            }
                        ],
                    }
                ]
            }
        )
    )
    proc = subprocess.run([promtool(), "check", "rules", str(f)], capture_output=True, text=True)
    assert proc.returncode != 0
