"""skaffold.yaml on the real node (k8s/node): the dev loop a developer and a platform team run.

Runs after test_cluster.py in the same session (file order), in the node's network namespace, with
the node's registry, the harness as the event's external data stores and the Java base image that
k8s/node/event-images.sh left in build/cluster/images. Skaffold (scripts/tools.sh skaffold) runs
the project's own skaffold.yaml from the repository root with the `event` profile, on the event
test_cluster.py installed (EVENT_NAME: its release and namespace), so no second Kafka starts on the
node's two cores:

  - `skaffold render`, with a build output of three pushed images, hands the chart exactly those
    images (no registry prefixed twice) and renders with the chart EVENT_CHART names;
  - `skaffold run` builds the three images with Jib, pushes them to the node's registry, upgrades
    the release with them and tests/cluster/values.yaml (EVENT_VALUES) and waits for the
    Deployments; an issuance from a pod answers 202;
  - `skaffold dev`: a change to coupon-api's sources rebuilds that image alone and rolls its
    Deployment alone;
  - `skaffold delete` leaves no object of the release (test_uninstall.py then checks the namespace
    whole and the Kafka volumes left behind).

Figures go to build/skaffold/report.json (written after every step, so a failed run shows how far
it got).
"""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

from kube import ROOT, hardened_pod, kubectl, kubectl_json, left_after, object_names, run

sys.path.insert(0, str(ROOT / "local"))
from verifier import tokens

HERE = Path(__file__).resolve().parent
VALUES = HERE / "values.yaml"
REGISTRY = yaml.safe_load(VALUES.read_text())["global"]["imageRegistry"]
# The release and its namespace: skaffold.yaml's event profile names both EVENT_NAME; the event
# test_cluster.py installed.
NS = RELEASE = "cluster-test"
SERVICES = ("coupon-api", "coupon-consumer", "coupon-waiting-room")
OUT = Path(os.environ.get("SKAFFOLD_OUT", ROOT / "build" / "skaffold"))
SKAFFOLD = ROOT / ".tools" / "bin" / "skaffold"
# The Java base Jib builds on here (eclipse-temurin cannot be pulled on this machine).
JAVA_BASE = ROOT / "build" / "cluster" / "images" / "java-base.tar"
# The change the dev loop must pick up: a resource of coupon-api (git-ignored, removed afterwards).
CHANGE = ROOT / "services" / "coupon-api" / "src" / "main" / "resources" / "skaffold-dev-change.txt"
SLOW = int(os.environ.get("CLUSTER_STEP_TIMEOUT", "900"))
# skaffold builds from source while test_cluster.py runs (tests/cluster/run.sh): minutes on a slow host
SKAFFOLD_BUILD_WAIT = 1800
RUN = str(int(time.time()))
ANSI = re.compile(r"\x1b\[[0-9;]*m")

FIGURES: dict = {
    "run": None,
    "images_built": None,
    "built": None,
    "dev_rebuilt": None,
    "dev_rolled": None,
    "delete_leftovers": None,
    "seconds": {},
}


def write_report() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "report.json").write_text(json.dumps({"skaffold": FIGURES}, indent=2) + "\n")


def wait_for_skaffold_build() -> None:
    """tests/cluster/run.sh builds skaffold while test_cluster.py runs and writes the build's exit
    status to SKAFFOLD_BUILD_RC; without that variable the binary is expected in place."""
    rc_file = os.environ.get("SKAFFOLD_BUILD_RC")
    if not rc_file:
        return
    rc_path = Path(rc_file)
    deadline = time.monotonic() + SKAFFOLD_BUILD_WAIT
    while not rc_path.exists():
        assert time.monotonic() < deadline, f"skaffold's build did not end within {SKAFFOLD_BUILD_WAIT} s"
        time.sleep(5)
    rc = rc_path.read_text().strip()
    log = rc_path.with_name("skaffold-build.log")
    tail = log.read_text()[-2000:] if log.exists() else ""
    assert rc == "0", f"scripts/tools.sh skaffold exited {rc}: {tail}"


@pytest.fixture(scope="module")
def env() -> dict:
    """Skaffold's environment: the event profile's parameters, Jib's base image, and a global config
    and artifact cache of this run's own (no prompts, no update check, nothing of ~/.skaffold)."""
    wait_for_skaffold_build()
    assert SKAFFOLD.exists(), f"{SKAFFOLD} missing: scripts/tools.sh skaffold"
    assert JAVA_BASE.exists(), f"{JAVA_BASE} missing: k8s/node/event-images.sh build"
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "cache").unlink(missing_ok=True)
    config = OUT / "global-config.yaml"
    config.write_text(
        yaml.safe_dump(
            {"global": {"collect-metrics": False, "update-check": False, "survey": {"disable-prompt": True}}}
        )
    )
    chart = run([str(ROOT / "tests/chart/offline-chart.sh"), str(OUT / "chart")]).stdout.strip()
    write_report()
    return dict(
        os.environ,
        JAVA_HOME=os.environ.get("JAVA_HOME") or "/usr/lib/jvm/temurin-25-jdk-amd64",
        EVENT_NAME=RELEASE,
        EVENT_VALUES=str(VALUES),
        EVENT_CHART=chart,
        MAVEN_ARGS=f"-Djib.from.image=tar://{JAVA_BASE}",
        SKAFFOLD_CONFIG=str(config),
    )


def skaffold_args(command: str) -> list[str]:
    args = [
        str(SKAFFOLD),
        command,
        "-p",
        "event",
        "--default-repo",
        REGISTRY,
        "--interactive=false",
        "--update-check=false",
    ]
    if command in ("run", "dev"):  # the commands that build: the registry speaks plain HTTP, and the
        # services' tests ran in the build stage (skaffold runs them in each build unless told not to)
        args += ["--insecure-registry", REGISTRY, "--cache-file", str(OUT / "cache"), "--skip-tests"]
    return args


def skaffold(command: str, env: dict, *extra: str, timeout: int = SLOW, step: str = "") -> str:
    """Runs one skaffold command from the repository root; its output is kept in
    build/skaffold/<step>.log and its duration in the report (step: default the command)."""
    step = step or command
    t0 = time.monotonic()
    proc = subprocess.run(
        [*skaffold_args(command), *extra],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout,
    )
    FIGURES["seconds"][step] = round(time.monotonic() - t0, 1)
    out = ANSI.sub("", proc.stdout)
    (OUT / f"{step}.log").write_text(out)
    assert proc.returncode == 0, f"skaffold {command} failed ({proc.returncode}):\n{out[-5000:]}"
    return out


def built(output: str) -> list[str]:
    """The artifacts skaffold built (its scheduler's `Building [<image>]...` lines), in order."""
    return re.findall(r"^Building \[([^\]]+)\]\.\.\.$", output, re.M)


def deployment(service: str) -> dict:
    return kubectl_json("-n", NS, "get", "deployment", f"{RELEASE}-{service}")


def revisions() -> dict[str, str]:
    """Each Deployment's rollout revision: it moves when, and only when, its pod template changed."""
    return {s: deployment(s)["metadata"]["annotations"]["deployment.kubernetes.io/revision"] for s in SERVICES}


def test_render_hands_the_chart_the_pushed_images(env):
    """Offline: from a build output naming three pushed images (what `skaffold build --file-output`
    writes), the event profile renders the chart EVENT_CHART names with tests/cluster/values.yaml,
    and every Deployment and hook runs exactly the image skaffold pushed, by digest."""
    digest = "sha256:" + "ab" * 32
    images = {s: f"{REGISTRY}/{s}:render@{digest}" for s in SERVICES}
    builds = OUT / "render-builds.json"
    builds.write_text(json.dumps({"builds": [{"imageName": s, "tag": t} for s, t in images.items()]}))
    out = skaffold("render", env, "--offline=true", "--digest-source=tag", f"--build-artifacts={builds}", timeout=300)
    docs = [d for d in yaml.safe_load_all(out[out.find("apiVersion:") :]) if d]
    used: dict[str, set] = {}
    for d in docs:
        spec = d.get("spec", {}).get("template", {}).get("spec", {})
        for c in spec.get("containers", []) + spec.get("initContainers", []):
            used.setdefault(d["kind"], set()).add(c["image"])
    ours = {i for kind in ("Deployment", "Job") for i in used.get(kind, ()) if "/coupon-" in i}
    assert ours == set(images.values()), f"images rendered: {sorted(ours)}; pushed: {sorted(images.values())}"


def test_render_event_profile_defaults(env):
    """The documented `skaffold run -p event --default-repo <registry>`, without EVENT_NAME or
    EVENT_VALUES: the release coupon-event with examples/event.yaml's coupon."""
    builds = OUT / "render-builds.json"
    bare = {k: v for k, v in env.items() if k not in ("EVENT_NAME", "EVENT_VALUES")}
    out = skaffold(
        "render",
        bare,
        "--offline=true",
        "--digest-source=tag",
        f"--build-artifacts={builds}",
        timeout=300,
        step="render-defaults",
    )
    docs = [d for d in yaml.safe_load_all(out[out.find("apiVersion:") :]) if d]
    names = {d["metadata"]["name"] for d in docs if d["kind"] == "Deployment"}
    assert names == {f"coupon-event-{s}" for s in SERVICES}, names
    event = yaml.safe_load((ROOT / "examples" / "event.yaml").read_text())["event"]["coupons"][0]
    assert f"id: {event['id']}" in out, "examples/event.yaml's coupon is not in the rendered event"


def test_run_builds_pushes_and_deploys(env):
    """`skaffold run -p event`: Jib builds the three images and pushes them to the node's registry,
    the release is upgraded (installed, were it not there) with them and skaffold waits for the
    Deployments; an issuance from a pod answers 202."""
    kubectl("create", "namespace", NS, check=False)
    # The database password, as tests/cluster/values.yaml expects it (a Secret of its own).
    kubectl("-n", NS, "create", "secret", "generic", "coupon-db", "--from-literal=password=coupon", check=False)
    out = skaffold("run", env, "--port-forward=off", timeout=SLOW * 2)
    FIGURES["built"] = built(out)
    FIGURES["images_built"] = len(FIGURES["built"])
    ready = {s: deployment(s)["status"].get("readyReplicas", 0) >= 1 for s in SERVICES}
    FIGURES["run"] = "deployed" if all(ready.values()) else f"not ready: {ready}"
    write_report()
    assert sorted(FIGURES["built"]) == sorted(SERVICES), out[-3000:]
    assert all(ready.values()), ready
    for s in SERVICES:
        image = deployment(s)["spec"]["template"]["spec"]["containers"][0]["image"]
        assert image.startswith(f"{REGISTRY}/{s}:") and "@sha256:" in image, image
    status = issue_from_a_pod()
    FIGURES["issuance_status"] = status
    write_report()
    assert status == 202, (OUT / "issue-from-a-pod.log").read_text()[-2000:]


def issue_from_a_pod() -> int:
    """One issuance of coupon 1 through the API's Service, by curl in a pod of another namespace
    (the API's port is open to every namespace): the HTTP status of its last answer (0: none; every
    answer and curl's errors are in build/skaffold/issue-from-a-pod.log)."""
    api = f"{RELEASE}-coupon-api"
    ref = next(
        e["valueFrom"]["secretKeyRef"]
        for e in deployment("coupon-api")["spec"]["template"]["spec"]["containers"][0]["env"]
        if "jwt" in e.get("valueFrom", {}).get("secretKeyRef", {}).get("name", "")
    )
    secret = base64.b64decode(kubectl_json("-n", NS, "get", "secret", ref["name"])["data"][ref["key"]]).decode()
    token = tokens.token(f"skaffold-{RUN}", secret, ttl=600)
    probe_ns, pod = f"{NS}-probe", "issue"
    kubectl("create", "namespace", probe_ns, check=False)
    url = f"http://{api}.{NS}.svc:8080/api/v1/coupons/1/issuances"
    # A new pod's first connections can be refused until the node's firewall knows its address
    # (network_paths.new_pod_first_connect_by_label in the cluster report), and a new release's API
    # answers 503 while it rebuilds the state of a coupon the stores already hold: those two are
    # retried every 3 s for a minute; any other answer is final. Every answer is logged with its
    # body (curl's own --retry cannot rewind an output it already wrote to).
    request = (
        "curl -sS --connect-timeout 5 --max-time 20 -w '\\nstatus=%{http_code}\\n' -X POST "
        f"-H 'Authorization: Bearer {token}' -H 'Content-Type: application/json' -d '{{}}' {url}"
    )
    command = [
        "sh",
        "-c",
        f'i=0; while [ $i -lt 20 ]; do i=$((i + 1)); out=$({request} 2>&1); echo "$out"; '
        'case "$out" in *status=000*|*status=503*) sleep 3 ;; *) exit 0 ;; esac; done',
    ]
    manifest = hardened_pod(pod, probe_ns, f"{REGISTRY}/curlimages/curl:local", command, uid=10001)
    try:
        kubectl("apply", "-f", "-", input=json.dumps(manifest))
        deadline = time.monotonic() + 600
        while kubectl_json("-n", probe_ns, "get", "pod", pod)["status"].get("phase") not in ("Succeeded", "Failed"):
            assert time.monotonic() < deadline, "the issuing pod did not finish within 600 s"
            time.sleep(2)
        log = kubectl("-n", probe_ns, "logs", pod).stdout
        (OUT / "issue-from-a-pod.log").write_text(log)
        statuses = re.findall(r"status=(\d+)", log)
        return int(statuses[-1]) if statuses else 0
    finally:
        kubectl("delete", "namespace", probe_ns, "--wait=false", check=False)


class Dev:
    """`skaffold dev` in the background; its output read line by line."""

    def __init__(self, env: dict):
        args = [
            *skaffold_args("dev"),
            "--cleanup=false",
            "--port-forward=off",
            "--tail=false",
            "--trigger=polling",
            "--watch-poll-interval=1000",
        ]
        self.proc = subprocess.Popen(
            args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
        )
        self.lines: list[str] = []
        self.log = open(OUT / "dev.log", "w")  # noqa: SIM115  closed in stop(), the reader thread writes to it
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            line = ANSI.sub("", line.rstrip("\n"))
            self.lines.append(line)
            self.log.write(line + "\n")
            self.log.flush()

    def iteration(self, start: int, timeout: float) -> str:
        """Output from line `start` to the end of the next dev iteration (its `Watching for
        changes` line, printed once the deploy is done and the Deployments are stable)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for i in range(start, len(self.lines)):
                if self.lines[i].startswith("Watching for changes"):
                    return "\n".join(self.lines[start : i + 1])
            assert self.proc.poll() is None, "skaffold dev exited:\n" + "\n".join(self.lines[-60:])
            time.sleep(1)
        pytest.fail(f"skaffold dev: no iteration ended within {timeout:.0f} s:\n" + "\n".join(self.lines[-60:]))

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
            try:
                self.proc.wait(120)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
        self.log.close()


def test_dev_rebuilds_and_rolls_only_the_changed_service(env):
    """`skaffold dev -p event`: its first iteration finds the three images of `skaffold run` in the
    cache and deploys; a change to coupon-api's sources makes it rebuild coupon-api alone, push it
    and roll the API's Deployment alone."""
    t0 = time.monotonic()
    dev = Dev(env)
    try:
        first = dev.iteration(0, SLOW * 2)
        mark = len(dev.lines)
        assert built(first) == [], f"the first iteration rebuilt {built(first)}:\n{first[-3000:]}"
        before = revisions()
        images = {s: deployment(s)["spec"]["template"]["spec"]["containers"][0]["image"] for s in SERVICES}
        CHANGE.write_text(f"A change skaffold dev picks up ({RUN}).\n")
        second = dev.iteration(mark, SLOW * 2)
        after = revisions()
        FIGURES["dev_rebuilt"] = built(second)
        FIGURES["dev_rolled"] = [s for s in SERVICES if after[s] != before[s]]
        FIGURES["seconds"]["dev"] = round(time.monotonic() - t0, 1)
        write_report()
        assert FIGURES["dev_rebuilt"] == ["coupon-api"], second[-3000:]
        assert FIGURES["dev_rolled"] == ["coupon-api"], (before, after)
        now = {s: deployment(s)["spec"]["template"]["spec"]["containers"][0]["image"] for s in SERVICES}
        assert [s for s in SERVICES if now[s] != images[s]] == ["coupon-api"], (images, now)
        assert deployment("coupon-api")["status"].get("readyReplicas", 0) >= 1
    finally:
        CHANGE.unlink(missing_ok=True)
        dev.stop()


def test_delete_leaves_nothing(env):
    """`skaffold delete -p event` uninstalls the release: no object or pod of it is left in its
    namespace (test_cluster.py's own test pods and the namespace are test_uninstall.py's)."""
    # test_cluster.py's k6 Jobs first: their pods carry the release's labels, as its NetworkPolicies
    # admit them by, and would count as left behind.
    kubectl(
        "-n",
        NS,
        "delete",
        "jobs",
        "-l",
        "coupon-event.io/test=cluster",
        "--cascade=foreground",
        "--wait=true",
        timeout=300,
    )
    skaffold("delete", env, timeout=SLOW)
    kinds = (
        "all,configmaps,secrets,serviceaccounts,roles,rolebindings,networkpolicies,poddisruptionbudgets,"
        "scaledobjects.keda.sh,horizontalpodautoscalers,testruns.k6.io,jobs"
    )

    release = f"app.kubernetes.io/instance={RELEASE}"
    left = left_after(
        lambda: (
            object_names(NS, kinds, release)
            + object_names(NS, "pods", release)
            + object_names(NS, "secrets", "owner=helm")
        )
    )
    FIGURES["delete_leftovers"] = len(left)
    write_report()
    assert not left, left
