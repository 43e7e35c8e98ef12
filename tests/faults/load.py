"""The load of a fault scenario: k6 waves, the probe that times answers during the fault, one
scenario's run with its marks, and the waves' results read back (per-request CSV, merged summary).
"""

import csv
import os
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from harness import ADMIN, OFFSET, ROOT, SETTINGS, http, log

# ---- one scenario's run ---------------------------------------------------------------------------


@dataclass
class Wave:
    name: str
    summary: str
    csv: str
    log: str  # k6's console output: the ISSUE_OUTCOME lines the verifier reads (--outcomes)
    proc: subprocess.Popen
    started: float


REDIS_PORTS = [7001 + OFFSET + i for i in range(9)]


def reservations(coupon):
    """The coupon's reservations in Redis (HLEN of its issued hash, following cluster redirects);
    None while no node answers for its slot."""
    for port in REDIS_PORTS:
        try:
            out = subprocess.run(
                ["redis-cli", "-c", "-p", str(port), "HLEN", f"{{coupon:{coupon}}}:issued"],
                capture_output=True,
                text=True,
                timeout=3,
            )
        except subprocess.TimeoutExpired:
            continue
        if out.returncode == 0 and out.stdout.strip().isdigit():
            return int(out.stdout.strip())
    return None


class Probe(threading.Thread):
    """Every second: the coupon's reservations in Redis and rows in MariaDB, each read directly, so
    that one store down does not blind the other; backlog = reservations - rows, with the last row
    count while MariaDB is down (no row can be written then). Also the API's reconciliation view."""

    def __init__(self, coupon):
        super().__init__(daemon=True)
        self.coupon, self.samples, self.stop = coupon, [], threading.Event()
        self.rows, self.db = None, None

    def count_rows(self):
        try:
            if self.db is None:
                self.db = SETTINGS.connect_db(connect_timeout=2, read_timeout=3)
            with self.db.cursor() as cur:
                cur.execute("SELECT COUNT(*) FROM issued_coupons WHERE coupon_id = %s", (self.coupon,))
                self.rows = cur.fetchone()[0]
            return True
        except Exception:  # MariaDB down or restarting: keep the last count, reconnect next time
            self.db = None
            return False

    def run(self):
        url = f"{SETTINGS.api_url}/api/v1/admin/coupons/{self.coupon}/reconciliation"
        while not self.stop.is_set():
            t = time.time()
            held = reservations(self.coupon)
            db_up = self.count_rows()
            status, body = http("GET", url, bearer=ADMIN, timeout=3)
            ok = status == 200 and isinstance(body, dict)
            self.samples.append(
                {
                    "t": t,
                    "reservations": held,
                    "rows": self.rows,
                    "db_up": db_up,
                    "status": status,
                    "backlog": max(0, held - self.rows) if held is not None and self.rows is not None else None,
                    **({k: body.get(k) for k in ("pending", "remaining", "consistent")} if ok else {}),
                }
            )
            self.stop.wait(max(0.0, 1.0 - (time.time() - t)))


class Run:
    """The context a scenario's injection gets: the clock, marks, waves, the coupon."""

    def __init__(self, scenario, coupon, out):
        self.sc, self.coupon, self.out = scenario, coupon, out
        self.prefix = f"{scenario.name}-{coupon}-"
        self.t0 = time.time()
        self.marks = []  # (label, epoch seconds, detail)
        self.waves = []
        self.notes = {}
        self.quantity = scenario.quantity  # the quantity judged: a scenario that changes it sets the final one
        self.base_url = SETTINGS.api_url  # where the waves send their requests

    def at(self, offset_s):
        """Sleeps until offset_s seconds after the main wave started."""
        delay = self.t0 + offset_s - time.time()
        if delay > 0:
            time.sleep(delay)

    def mark(self, label, detail=""):
        t = time.time()
        self.marks.append((label, t, detail))
        log(f"  t+{t - self.t0:5.1f}s {label} {detail}")
        return t

    def mark_time(self, label):
        return next((t for lb, t, _ in self.marks if lb == label), None)

    def wave(self, name, script, env):
        """Starts a k6 scenario in the background on the run's coupon, with per-request CSV output."""
        summary = os.path.join(self.out, f"{name}-k6.json")
        out_csv = os.path.join(self.out, f"{name}-k6.csv")
        full = {
            **os.environ,
            "COUPON_ID": str(self.coupon),
            "BASE_URL": self.base_url,
            "USER_PREFIX": self.prefix,
            "SUMMARY_PATH": summary,
            "K6_CSV_TIME_FORMAT": "unix_milli",
            # correctness, not latency: thresholds are not judged here
            "P95_MS": "600000",
            "P99_MS": "600000",
            "MAX_UNEXPECTED_RATE": "1",
            "MAX_FAILED_RATE": "1",
            "REQUEST_TIMEOUT": "20s",
            "LOG_VUS": "0",
            # every 202, 503 and unanswered request named with its user: the verifier judges per user
            "LOG_OUTCOMES": "1",
            **{k: str(v) for k, v in env.items()},
        }
        logf = open(os.path.join(self.out, f"{name}-k6.log"), "w")  # noqa: SIM115  k6 writes it; wait() closes it
        proc = subprocess.Popen(
            ["nice", "-n", "10", "loadtests/run.sh", script, "--quiet", "--out", f"csv={out_csv}"],
            cwd=ROOT,
            env=full,
            stdout=logf,
            stderr=subprocess.STDOUT,
        )
        w = Wave(name, summary, out_csv, logf.name, proc, time.time())
        self.waves.append(w)
        return w

    def wait_waves(self, timeout=600):
        for w in self.waves:
            rc = w.proc.wait(timeout=timeout)
            # 0: thresholds passed; 99: a threshold failed (gave-up users under a fault are expected)
            if rc not in (0, 99) or not os.path.exists(w.summary):
                raise RuntimeError(f"k6 wave {w.name} exited {rc} (see {self.out}/{w.name}-k6.log)")


@dataclass
class Scenario:
    name: str
    title: str
    length: str  # short (in make test) | long
    quantity: int
    rate: int  # main wave: new users per second
    duration: int  # main wave: seconds
    inject: Callable[[Run], None]
    # extra judged checks: (Run, result dict) -> [(name, ok, detail)]
    checks: Callable[[Run, dict], list] = lambda run, res: []
    settle_timeout: float = 120.0
    wave_env: dict = field(default_factory=dict)  # the main wave's k6 settings beyond the defaults
    # figures of its own from the run and every issuance request (answered ms, duration ms, status,
    # error code, k6 scenario), added to the result before it is judged
    measure: Callable[[Run, list], dict] = lambda run, requests: {}
    # program arguments the API runs with for this scenario (restarted with them, and without after)
    api_args: str = ""
    # 2: a second API process (api-2) and the waves through the harness's Service in front of both
    # (local/services.sh lb), as the chart runs at least two pods; stopped after the scenario
    api_instances: int = 1


# ---- measuring --------------------------------------------------------------------------------------


def read_requests(path, phases=False, name="issue"):
    """(answered at ms, duration ms, status, error code) of every issuance POST in a k6 CSV (name:
    k6's request name tag: issue, wr-join, wr-poll); with phases, also the k6 scenario
    (arrival-rate.js: one per phase, p1_1200rps, p2_60rps, ...)."""
    out = []
    if not os.path.exists(path):
        return out
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["metric_name"] == "http_req_duration" and row.get("name") == name:
                r = (
                    int(row["timestamp"]),
                    float(row["metric_value"]),
                    int(row["status"] or 0),
                    row.get("error_code") or "",
                )
                out.append(r + (row.get("scenario") or "",) if phases else r)
    return out


def merge(summaries):
    """One k6 summary for the verifier from the waves of a run (counts summed)."""
    keys = (
        "requests",
        "accepted",
        "duplicate",
        "sold_out",
        "not_open",
        "shed",
        "timed_out",
        "gave_up",
        "requesters",
        "confirmed",
        "unconfirmed",
        "unexpected",
    )
    out = dict(summaries[0])
    for k in keys:
        out[k] = sum(int(s.get(k, 0) or 0) for s in summaries)
    out.update(scenario="faults", user_offset=0, users=0, thresholds={}, thresholds_ok=True)
    return out
