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


# test_cluster.py's and test_skaffold.py's tests act on the release test_install makes: without it
# each would wait out its own time limit (minutes each), long enough for CI's limit to end the run
# before any summary. test_uninstall.py still cleans up.
NEEDS_INSTALL = ("test_cluster.py", "test_skaffold.py")
INSTALL_FAILED = pytest.StashKey[str]()


def pytest_runtest_setup(item):
    failed = item.session.stash.get(INSTALL_FAILED, None)
    if failed and item.path.name in NEEDS_INSTALL:
        pytest.skip(f"the install failed: {failed}")


def pytest_runtest_logreport(report):
    """A failure is told as it happens, in the timeline too (pytest's own account comes at the end of
    the session, which a run stopped by CI's time limit never reaches)."""
    if not report.failed:
        return
    crash = getattr(report.longrepr, "reprcrash", None)
    reason = crash.message if crash else str(report.longrepr).strip().splitlines()[-1]
    reason = " / ".join(ln.strip() for ln in reason.splitlines() if ln.strip())
    REPORT.event(f"FAILED {report.nodeid.split('::')[-1]} ({report.when}): {reason[:600]}")
    REPORT.write()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    rep = yield
    if rep.failed and item.path.name == "test_cluster.py" and item.name == "test_install":
        item.session.stash[INSTALL_FAILED] = rep.nodeid
    return rep


def pytest_sessionfinish(session, exitstatus):
    REPORT.write()


def pytest_terminal_summary(terminalreporter):
    terminalreporter.section("real-node report (build/cluster/report.json)")
    for line in json.dumps(REPORT.figures, indent=2).splitlines():
        terminalreporter.write_line(line)
