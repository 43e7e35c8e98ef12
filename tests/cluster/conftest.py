"""The report of the real-node test: build/cluster/report.json (figures) and timeline.txt (events in
order, seconds from the start of the run). Written at the end of the session whatever passed, so a
failed run still shows how far it got."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

OUT = Path(os.environ.get("CLUSTER_OUT", Path(__file__).resolve().parents[2] / "build" / "cluster"))
START = time.monotonic()


class Report:
    def __init__(self):
        self.figures: dict = {
            "pods_ready_s": None,
            "images_pulled": None,
            "hpa_cpu_metric": None,
            "networkpolicy_enforced": None,
            "allowed_paths_ok": None,
            "denied_paths_denied": None,
            "hooks": {},
            "helm_test": None,
            "issued_rows": None,
            "waiting_room": {},
            "ingress": {},
            "strimzi": {"operator_ready_s": None, "kafka_ready_s": None, "topics_ready": None},
            "kafka_auth": {"unauthenticated_produce_refused": None},
            "keda": {},
            "testrun": {},
            "faults": {},
            "uninstall_leftovers": None,
            "reinstall": None,
        }
        self.events: list[tuple[float, str]] = []

    @staticmethod
    def now() -> float:
        """Seconds since the run started, the clock of event()."""
        return time.monotonic() - START

    def event(self, what: str) -> float:
        t = self.now()
        self.events.append((t, what))
        print(f"[{t:7.1f} s] {what}", flush=True)
        return t

    def write(self):
        OUT.mkdir(parents=True, exist_ok=True)
        (OUT / "report.json").write_text(json.dumps(self.figures, indent=2) + "\n")
        (OUT / "timeline.txt").write_text("".join(f"{t:8.1f} s  {what}\n" for t, what in self.events))


REPORT = Report()


@pytest.fixture(scope="session")
def report() -> Report:
    return REPORT


def pytest_sessionfinish(session, exitstatus):
    REPORT.write()


def pytest_terminal_summary(terminalreporter):
    terminalreporter.section("real-node report (build/cluster/report.json)")
    for line in json.dumps(REPORT.figures, indent=2).splitlines():
        terminalreporter.write_line(line)
