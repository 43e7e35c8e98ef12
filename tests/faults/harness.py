"""The fault harness: the local harness's processes (started, killed, signalled, healed), its
scrapes and dead letters, and the settings every fault module shares (tests/faults/run.sh exports
PORT_OFFSET and RUN_DIR).
"""

import contextlib
import json
import os
import signal
import subprocess
import time
import urllib.request

import harness_profile  # local/profiles/
from verifier import tokens  # the project's one JWT signer
from verifier.harness import http
from verifier.settings import Settings

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The fault harness's place (run.sh exports them): faults kill processes, never another suite's.
os.environ.setdefault("PORT_OFFSET", "2000")
os.environ.setdefault("RUN_DIR", os.path.join(ROOT, ".run", "infra-faults"))

SETTINGS = Settings.from_env()
OFFSET = SETTINGS.offset
RUN_DIR = os.environ["RUN_DIR"]
ADMIN = tokens.token("admin", SETTINGS.secret, admin=True, ttl=24 * 3600)
LATE_OFFSET = 100_000  # user ids of the late wave: USER_PREFIX + (100000 + n)
BURST_OFFSET = 50_000  # user ids of a burst wave


def log(msg):
    print(f"[faults {time.strftime('%H:%M:%S')}] {msg}", flush=True)


# ---- the harness ----------------------------------------------------------------------------------


def sh(*cmd, check=True, timeout=900, env=None):
    """Runs a harness command (local/infra.sh, local/services.sh) and returns its stdout."""
    res = subprocess.run(
        list(cmd), cwd=ROOT, capture_output=True, text=True, timeout=timeout, env={**os.environ, **env} if env else None
    )
    for line in res.stderr.splitlines():
        print(f"    {line}", flush=True)
    if check and res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {res.returncode}")
    return res.stdout.strip()


def infra(*args, **kw):
    return sh("local/infra.sh", *args, **kw)


def services(*args, **kw):
    return sh("local/services.sh", *args, **kw)


def read_text(path):
    with open(path) as f:
        return f.read()


def pid_of(name):
    """PID of a running harness process from its PID file (api, consumer, kafka-N, redis-PORT,
    mariadb), only while that process still carries the file's marker (as local/lib/common.sh checks:
    a recycled PID is never signalled)."""
    base = os.path.join(RUN_DIR, "pids", f"{name}.pid")
    try:
        with open(base) as f:
            pid = int(f.read().strip())
        marker = read_text(base + ".marker").strip() if os.path.exists(base + ".marker") else RUN_DIR
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return pid if marker.encode() in f.read().replace(b"\0", b" ") else None
    except (OSError, ValueError):
        return None


# The harness's dedicated KRaft controllers (local/lib/common.sh KAFKA_CONTROLLERS); brokers are 1-3.
KAFKA_CONTROLLERS = (4, 5, 6)


def kafka_quorum_leader(nodes=KAFKA_CONTROLLERS):
    """The KRaft quorum's leader (the active controller) as the controllers recorded it last
    (`data/__cluster_metadata-0/quorum-state`), the newest epoch; None when no node says."""
    best = None
    for n in nodes:
        path = os.path.join(RUN_DIR, "kafka", str(n), "data", "__cluster_metadata-0", "quorum-state")
        try:
            state = json.loads(read_text(path))
        except (OSError, ValueError):
            continue
        if state.get("leaderId", -1) >= 0 and (best is None or state["leaderEpoch"] > best[1]):
            best = (state["leaderId"], state["leaderEpoch"])
    return best[0] if best else None


def signal_pid(name, sig):
    pid = pid_of(name)
    if pid is None:
        raise RuntimeError(f"{name} has no PID file")
    os.kill(pid, sig)
    log(f"{name}: {signal.Signals(sig).name} (pid {pid})")
    return pid


def ready(port):
    return http("GET", f"http://127.0.0.1:{port}/actuator/health/readiness", timeout=3)[0] == 200


API_MGMT, CONSUMER_MGMT = 8081 + OFFSET, 8091 + OFFSET
# The API's Service for the harness (local/services.sh lb): api and api-2 behind one address.
LB_URL = f"http://127.0.0.1:{8088 + OFFSET}"


def whole():
    """Every part of the harness is up and both services answer ready."""
    status = infra("status", check=False)
    return " down" not in status and ready(API_MGMT) and ready(CONSUMER_MGMT)


API_ARGS_NOW = [""]  # the program arguments the running API was started with


def api_with(args):
    """Restarts the API with these program arguments (API_ARGS of local/services.sh) if it runs
    with others."""
    if API_ARGS_NOW[0] == args:
        return
    log(f"  restarting the API with arguments {args!r}")
    services("down", "api")
    services("up", "api", env={"API_ARGS": args})
    API_ARGS_NOW[0] = args


# Set by a scenario that restarted Kafka nodes: their leaderships stay with the survivors
# (local/infra.sh kafka-start N), and the next scenario starts from balanced leaders.
KAFKA_LEADERS_MOVED = [False]


def heal():
    """Brings back whatever a scenario left down or paused; stops extra API and consumer processes
    and the API's Service; puts Kafka's leaders back on their preferred replicas after a restart."""
    for f in os.listdir(os.path.join(RUN_DIR, "pids")):
        pid = pid_of(f[:-4]) if f.endswith(".pid") else None
        if pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)  # a scenario that failed may have left one stopped
    if pid_of("mariadb"):
        infra("mariadb-read-only", "off", check=False)  # a failed mariadb-read-only run may have left it on
    extras = [n for n in ["api-2"] + [f"consumer-{n}" for n in range(2, 6)] if pid_of(n)]
    if extras:
        services("down", *extras, check=False)
    if pid_of("lb"):
        services("lb", "down", check=False)
    if KAFKA_LEADERS_MOVED[0]:
        infra("kafka-balance", check=False)
        KAFKA_LEADERS_MOVED[0] = False
    if whole():
        return
    log("healing the harness: infra up, services up")
    if not ready(API_MGMT):
        API_ARGS_NOW[0] = ""  # started again below with the harness's own arguments
    infra("up")
    services("up", "api", "consumer")


def timeouts_in_force():
    """The failure-detection timeouts the running harness uses (local/infra.sh timeouts, set by the
    profile HARNESS_PROFILE, local/profiles/): {name: milliseconds or None}, the profile's name, and
    its harness accommodations in force (settings the chart does not ship, or the environment's)."""
    out = {}
    for line in infra("timeouts", check=False).splitlines():
        name, _, value = line.partition("=")
        out[name] = int(value) if value.strip().isdigit() else None
    name = os.environ.get("HARNESS_PROFILE", "product")
    profile = harness_profile.in_force(name, harness_profile.read(name), os.environ)
    out["profile"] = name
    out["harness_accommodations"] = {
        s["name"]: s["value"] for s in profile["settings"] if s["kind"] == "harness" or s["overridden"]
    }
    return out


def counter_deltas(before, after, name, label):
    """{label value: increase} of a counter between two scrapes; a process restarted in between
    counts from zero."""
    out = {}
    for key, value in after.items():
        if key.startswith(name + "{") and f'{label}="' in key:
            start = before.get(key, 0.0)
            delta = value - start if value >= start else value
            if delta:
                tag = key.split(f'{label}="')[1].split('"')[0]
                out[tag] = out.get(tag, 0) + int(delta)
    return out


def scrape(port):
    """A management port's /actuator/prometheus as {series: value}; {} when it does not answer."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/actuator/prometheus", timeout=5) as r:
            text = r.read().decode()
    except OSError:
        return {}
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            with contextlib.suppress(ValueError):
                out[name] = float(value)
    return out


def dead_letters():
    """Records in the dead-letter topic (sum of its end offsets), read with the harness's Kafka jars."""
    libs = sorted(d for d in os.listdir(os.path.join(ROOT, ".tools")) if d.startswith("kafka-"))
    java = os.path.join(os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64"), "bin", "java")
    cmd = [
        java,
        "-Xmx128m",
        "-XX:TieredStopAtLevel=1",
        "-XX:+UseSerialGC",
        "-cp",
        os.path.join(ROOT, ".tools", libs[-1], "libs", "*"),
        "org.apache.kafka.tools.GetOffsetShell",
        "--bootstrap-server",
        SETTINGS.kafka_bootstrap,
        "--topic",
        "coupon-issuance-dlt",
    ]
    for _ in range(3):
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        lines = [ln.rsplit(":", 1) for ln in res.stdout.splitlines() if ln.count(":") >= 2]
        if res.returncode == 0 and lines:
            return sum(int(n) for _, n in lines)
        time.sleep(3)
    return None
