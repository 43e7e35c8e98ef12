"""k6 series names read by the dashboards follow from the load-test scripts and the remote-write
output's naming: prefix k6_, Counter -> _total, Rate -> _rate, Gauge as is, Trend -> one series per
K6_PROMETHEUS_RW_TREND_STATS entry (p(95) -> _p95). With the pinned k6 built, a real run checks the
naming itself against a throwaway Prometheus."""

import json
import os
import re
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request

import pytest
from conftest import ROOT, exporter_metrics, referenced_metrics

BUILTIN = {
    "vus": "Gauge",
    "vus_max": "Gauge",
    "http_reqs": "Counter",
    "http_req_failed": "Rate",
    "checks": "Rate",
    "dropped_iterations": "Counter",
    "iterations": "Counter",
    "http_req_duration": "Trend",
    "data_sent": "Counter",
    "data_received": "Counter",
}


def trend_stats():
    text = (ROOT / "loadtests" / "run.sh").read_text()
    m = re.search(r"K6_PROMETHEUS_RW_TREND_STATS:-([^}\"]+)", text)
    assert m, "loadtests/run.sh no longer sets K6_PROMETHEUS_RW_TREND_STATS"
    return [
        re.sub(r"^p\((.*)\)$", lambda g: "p" + g.group(1).replace(".", ""), s.strip()) for s in m.group(1).split(",")
    ]


def declared_metrics():
    out = dict(BUILTIN)
    for f in (ROOT / "loadtests").rglob("*.js"):
        for kind, name in re.findall(r"new (Counter|Gauge|Rate|Trend)\(\s*['\"]([A-Za-z0-9_]+)['\"]", f.read_text()):
            out[name] = kind
    return out


def expected_series(metrics, stats):
    names = set()
    for name, kind in metrics.items():
        if kind == "Counter":
            names.add(f"k6_{name}_total")
        elif kind == "Rate":
            names.add(f"k6_{name}_rate")
        elif kind == "Gauge":
            names.add(f"k6_{name}")
        else:
            names.update(f"k6_{name}_{s}" for s in stats)
    return names


def test_k6_names_follow_from_the_scripts_and_trend_stats(rules, dashboards):
    expected = expected_series(declared_metrics(), trend_stats())
    used = {n for n in referenced_metrics(rules, dashboards) if n.startswith("k6_")}
    assert used, "no k6 panels"
    assert used <= expected, f"not produced by loadtests/ with its trend stats: {sorted(used - expected)}"
    pinned = {n for n in exporter_metrics() if n.startswith("k6_")}
    assert used == pinned


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(not (ROOT / ".tools" / "bin" / "k6").exists(), reason="pinned k6 not built (scripts/tools.sh k6)")
def test_real_k6_remote_write_produces_those_names(tmp_path):
    """Runs k6 against a throwaway Prometheus with the remote-write receiver and lists the names."""
    prometheus = shutil.which("prometheus")
    assert prometheus, "prometheus missing: scripts/tools.sh apt"
    port = free_port()
    (tmp_path / "prometheus.yml").write_text("global: {scrape_interval: 1m}\n")
    prom = subprocess.Popen(
        [
            prometheus,
            f"--config.file={tmp_path / 'prometheus.yml'}",
            f"--storage.tsdb.path={tmp_path / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
            "--web.enable-remote-write-receiver",
            f"--web.console.templates={tmp_path}",
            f"--web.console.libraries={tmp_path}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(60):
            try:
                urllib.request.urlopen(base + "/-/ready", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        script = tmp_path / "names.js"
        script.write_text(
            "import http from 'k6/http';\n"
            "import { sleep } from 'k6';\n"
            "import { Counter, Trend, Rate } from 'k6/metrics';\n"
            "const c = new Counter('issuance_accepted');\n"
            "const t = new Trend('time_to_issued', true);\n"
            "const r = new Rate('unexpected');\n"
            "export const options = { vus: 1, duration: '3s' };\n"
            f"export default function () {{ http.get('{base}/-/healthy'); c.add(1); t.add(1500); r.add(false); "
            "sleep(0.2); }\n"
        )
        env = dict(
            os.environ,
            K6_PROMETHEUS_RW_SERVER_URL=base + "/api/v1/write",
            K6_PROMETHEUS_RW_TREND_STATS="p(50),p(95),p(99)",
            K6_NO_USAGE_REPORT="true",
        )
        run = subprocess.run(
            [str(ROOT / ".tools" / "bin" / "k6"), "run", "-q", "-o", "experimental-prometheus-rw", str(script)],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0, run.stdout + run.stderr
        names = set(json.load(urllib.request.urlopen(base + "/api/v1/label/__name__/values"))["data"])
        for name in (
            "k6_vus",
            "k6_http_reqs_total",
            "k6_http_req_duration_p95",
            "k6_http_req_failed_rate",
            "k6_issuance_accepted_total",
            "k6_time_to_issued_p99",
            "k6_unexpected_rate",
        ):
            assert name in names, f"{name} not written by k6; got {sorted(n for n in names if n.startswith('k6_'))}"
        # Time trends arrive in seconds: 1500 ms -> 1.5
        q = urllib.parse.quote("max(k6_time_to_issued_p95)")
        value = json.load(urllib.request.urlopen(f"{base}/api/v1/query?query={q}"))["data"]["result"][0]["value"][1]
        assert float(value) == pytest.approx(1.5)
    finally:
        prom.terminate()
        prom.wait(timeout=30)
