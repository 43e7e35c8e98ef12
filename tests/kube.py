"""Helpers of the chart suites that talk to Kubernetes (tests/apiserver, tests/platform), loaded as a
pytest plugin by tests/pytest.sh: paths, YAML loading, helm/kubectl runners and the timing report."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SHARED_DIR", ROOT.parent / "shared"))
# The operators' CRDs, one folder per operator (scripts/tools.sh crds)
CRDS = Path(os.environ.get("CRDS_DIR", ROOT / ".tools" / "crds"))
BIN = ROOT / ".tools" / "bin"
TIMINGS_FILE = ROOT / "build" / "platform-timings.txt"

# Measured durations, in order: (what, seconds). Printed in the terminal summary and kept in build/.
TIMINGS: list[tuple[str, float]] = []


def tool(name: str) -> str:
    path = BIN / name
    return str(path) if path.exists() else name


def load_yaml(path: Path):
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


def load_yaml_all(text: str) -> list[dict]:
    return [d for d in yaml.safe_load_all(text) if d]


class CommandError(AssertionError):
    pass


def run(
    args: list[str], *, input: str | None = None, check: bool = True, timeout: int = 300, timed: str | None = None
) -> subprocess.CompletedProcess:
    start = time.monotonic()
    proc = subprocess.run(args, input=input, capture_output=True, text=True, timeout=timeout)
    if timed:
        TIMINGS.append((timed, time.monotonic() - start))
    if check and proc.returncode != 0:
        raise CommandError(
            f"command failed ({proc.returncode}): {' '.join(args)}\n--- stdout\n{proc.stdout[-4000:]}"
            f"\n--- stderr\n{proc.stderr[-4000:]}"
        )
    return proc


def helm(*args: str, **kw) -> subprocess.CompletedProcess:
    return run([tool("helm"), *args], **kw)


def kubectl(*args: str, **kw) -> subprocess.CompletedProcess:
    return run([tool("kubectl"), *args], **kw)


def kubectl_json(*args: str) -> dict:
    return json.loads(kubectl(*args, "-o", "json").stdout)


# The tests' own pods (probes, clients, load) run as hardened as the chart's.
HARDENED_CONTAINER = {
    "allowPrivilegeEscalation": False,
    "readOnlyRootFilesystem": True,
    "capabilities": {"drop": ["ALL"]},
}


def object_names(namespace: str, kinds: str, selector: str | None = None) -> list[str]:
    """`kubectl get KINDS -o name` in a namespace, optionally by label selector."""
    args = ["-n", namespace, "get", kinds, "-o", "name"] + (["-l", selector] if selector else [])
    return kubectl(*args).stdout.split()


def left_after(listing, within: float = 300) -> list[str]:
    """What `listing()` (names of objects that should go away) still returns after waiting up to
    `within` seconds for it to be empty, sorted."""
    deadline = time.monotonic() + within
    while (left := sorted(set(listing()))) and time.monotonic() < deadline:
        time.sleep(2)
    return left


def hardened_pod(
    name: str,
    namespace: str,
    image: str,
    command: list[str],
    *,
    uid: int,
    labels: dict | None = None,
    env: list[dict] | None = None,
    tmp: bool = False,
) -> dict:
    """The manifest of a pod of the tests: one hardened container, no service account token, no restart,
    no grace period; `tmp` mounts an emptyDir at /tmp (the root filesystem is read-only)."""
    container = {"name": "main", "image": image, "command": command, "securityContext": HARDENED_CONTAINER}
    if env:
        container["env"] = env
    spec = {
        "restartPolicy": "Never",
        "automountServiceAccountToken": False,
        "terminationGracePeriodSeconds": 0,
        "securityContext": {"runAsNonRoot": True, "runAsUser": uid, "seccompProfile": {"type": "RuntimeDefault"}},
        "containers": [container],
    }
    if tmp:
        container["volumeMounts"] = [{"name": "tmp", "mountPath": "/tmp"}]
        spec["volumes"] = [{"name": "tmp", "emptyDir": {}}]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "labels": labels or {}},
        "spec": spec,
    }


def start_pod(pod: dict, ready_within: int = 300) -> None:
    """Applies a pod manifest and waits until the pod is Ready."""
    kubectl("apply", "-f", "-", input=json.dumps(pod))
    meta = pod["metadata"]
    kubectl(
        "-n",
        meta["namespace"],
        "wait",
        "--for=condition=Ready",
        f"pod/{meta['name']}",
        f"--timeout={ready_within}s",
        timeout=ready_within + 20,
    )


@pytest.fixture(scope="session")
def chart_dir() -> Path:
    if not (ROOT / "Chart.yaml").exists():
        pytest.fail("no Chart.yaml at the repository root: the per-event chart is missing")
    return ROOT


def pytest_terminal_summary(terminalreporter):
    if not TIMINGS:
        return
    terminalreporter.section("measured times")
    lines = [f"{what:<60} {secs:7.2f} s" for what, secs in TIMINGS]
    for line in lines:
        terminalreporter.write_line(line)
    TIMINGS_FILE.parent.mkdir(parents=True, exist_ok=True)
    with open(TIMINGS_FILE, "a", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
