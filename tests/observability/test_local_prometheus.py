"""The local Prometheus (local/prometheus.sh) scrapes every service the chart monitors, on the
management port the services' contract gives, and its configuration is valid for promtool."""

import subprocess

import yaml
from conftest import ROOT, promtool

# Management ports of docs/contract.md (PORT_OFFSET 0), by the job name the chart's ServiceMonitors
# give them (the Service name without the release prefix).
SERVICES = {"coupon-api": 8081, "coupon-consumer": 8091, "coupon-waiting-room": 8071}


def render(tmp_path, offset=0):
    out = tmp_path / "prometheus.yml"
    subprocess.run(
        ["bash", str(ROOT / "local" / "prometheus.sh"), "render", str(out)],
        check=True,
        env={"PATH": "/usr/bin:/bin", "PORT_OFFSET": str(offset), "RUN_DIR": str(tmp_path)},
    )
    return out


def test_scrapes_every_service_on_its_management_port(tmp_path):
    config = yaml.safe_load(render(tmp_path, offset=100).read_text())
    jobs = {j["job_name"]: j for j in config["scrape_configs"]}
    for service, port in SERVICES.items():
        assert service in jobs, f"no scrape job for {service}: {sorted(jobs)}"
        job = jobs[service]
        assert job["metrics_path"] == "/actuator/prometheus"
        targets = [t for c in job["static_configs"] for t in c["targets"]]
        assert targets == [f"127.0.0.1:{port + 100}"], targets
        assert all(c["labels"]["namespace"] == "local" for c in job["static_configs"])


def test_configuration_passes_promtool(tmp_path):
    proc = subprocess.run(
        [promtool(), "check", "config", "--syntax-only", str(render(tmp_path))], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
