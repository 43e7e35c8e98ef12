"""The capacity search of `make bench`: an open-model ladder of constant-arrival-rate steps
(loadtests/arrival-rate.js, a fresh user per request, each step on a fresh coupon with stock for
every arrival), adaptive: from START the rate grows by GROWTH until a step fails, then the interval
between the last pass and the first fail is bisected to RESOLUTION. A step passes when at least
MIN_ACHIEVED of the offered requests were accepted, its p95 is at most P95_MS, and no answer was
unexpected. capacity_rps is the highest rate that passed.

Each step reports, beside its figures, the ceilings its settings impose by Little's law
(local/bench/ceilings.py: the in-flight bound over the time an issuance holds its slot, Tomcat's
threads and connections over the response time, the consumer's writers over its time per row), and
a step that fails names what ended it: the CPU when the machine was busy, else the bound its rate
reached. The ladder's result names the resource that ended the ladder (ended_by).

Each step also measures CPU per request from /proc/<pid>/stat (utime + stime) of every harness
process (RUN_DIR/pids), from the step's start until MariaDB holds a row per 202 (so the consumer's
and the database's share of the step is inside the window), and k6's own CPU from its rusage.

Run by local/bench.sh; alone (stack up, PORT_OFFSET / RUN_DIR as for the harness):
  local/bench/ladder.sh [--start 300] [--fixed 600,600] [--out build/bench] ...
--fixed runs exactly the given rates (no search): a fixed-rate comparison, e.g. of JVM flags."""

import argparse
import glob
import json
import math
import os
import subprocess
import sys
import time
import urllib.request

import ceilings
from verifier.harness import Api, Database
from verifier.machine import machine_ticks, ticks
from verifier.settings import Settings

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HZ = os.sysconf("SC_CLK_TCK")


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')} ladder] {msg}", file=sys.stderr, flush=True)


def role(name):
    """The component a harness PID file belongs to: api, consumer (also consumer-N), kafka, redis, mariadb,
    waiting-room."""
    for prefix in ("consumer", "kafka", "redis"):
        if name.startswith(prefix):
            return prefix
    return name


def open_text(path):
    with open(path) as f:
        return f.read()


def run_dir():
    """The harness's RUN_DIR (local/lib/common.sh): its PID files are under pids/."""
    return os.environ.get("RUN_DIR") or os.path.join(ROOT, ".run", "infra")


def harness_pids(run_dir):
    """name -> pid of every process the harness started in RUN_DIR and that is alive."""
    out = {}
    for f in glob.glob(os.path.join(run_dir, "pids", "*.pid")):
        try:
            with open(f) as pidfile:
                pid = int(pidfile.read().strip())
        except (OSError, ValueError):
            continue
        if ticks(pid) is not None:
            out[os.path.basename(f)[:-4]] = pid
    return out


def snapshot(pids):
    return {name: ticks(pid) for name, pid in pids.items()}


def cpu_seconds(pids, before, after):
    """role -> CPU seconds between two snapshots."""
    out = {}
    for name in pids:
        if before.get(name) is None or after.get(name) is None:
            continue
        out[role(name)] = out.get(role(name), 0.0) + (after[name] - before[name]) / HZ
    return out


def scrape(url):
    """A management port's /actuator/prometheus text; "" when it does not answer."""
    try:
        with urllib.request.urlopen(f"{url}/actuator/prometheus", timeout=5) as r:
            return r.read().decode()
    except OSError:
        return ""


def per(cpu_s, count):
    return round(cpu_s * 1e6 / count, 1) if count else None


class Ladder:
    def __init__(self, a):
        self.a = a
        self.settings = Settings.from_env()
        self.api = Api(self.settings)
        self.db = Database(self.settings)
        self.run_dir = run_dir()
        self.base = int(time.time() * 1000)
        self.steps = []
        os.makedirs(a.out, exist_ok=True)
        # the settings in force (local/bench/ceilings.py settings, written by make bench)
        self.limits = {}
        if a.settings and os.path.exists(a.settings):
            with open(a.settings) as f:
                self.limits = json.load(f)

    def step(self, rate, seconds, label):
        a = self.a
        index = len(self.steps)
        coupon = self.base + index
        # Stock for every arrival k6 can start (one more per second at the window's edges) and a margin.
        quantity = math.ceil(rate * (seconds + 1)) + 1000
        self.api.register(str(coupon), quantity)
        summary = os.path.join(a.out, f"ladder-{index:02d}-{label}-{rate}-k6.json")
        env = {
            **os.environ,
            "COUPON_ID": str(coupon),
            "STAGES": f"{rate}:{seconds}s",
            "USER_PREFIX": f"l{index}-",
            "SUMMARY_PATH": summary,
            "SHED_RETRIES": "0",
            "MAX_VUS": str(a.max_vus),
            "LOG_VUS": "5",
            "BASE_URL": self.settings.api_url,
            "K6_DASHBOARD": "0",
        }  # its exporter's CPU would count as k6's in the step
        env.pop("LATENCY_JUDGED", None)
        pids = harness_pids(self.run_dir)
        metrics_before = scrape(self.settings.management_url)
        machine_before = machine_ticks()
        before, t0 = snapshot(pids), time.time()
        with open(os.path.join(a.out, f"ladder-{index:02d}-k6.log"), "w") as out:
            proc = subprocess.Popen(
                [os.path.join(a.loadtests, "run.sh"), "arrival-rate.js", "--quiet"],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
            # run.sh execs k6: this child is k6, and wait4 gives its own CPU.
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
        k6_s = usage.ru_utime + usage.ru_stime
        k6_end = time.time()
        metrics_after = scrape(self.settings.management_url)
        machine_after = machine_ticks()
        if not os.path.exists(summary):
            raise SystemExit(f"k6 exited {proc.returncode} without a summary: see {out.name}")
        with open(summary) as f:
            k6 = json.load(f)
        phase = k6["phases"][0]
        accepted = k6["accepted"]
        # The step ends when every 202 has its row (or after the drain timeout).
        rows = self.db.row_count(str(coupon))
        while rows < accepted and time.time() - k6_end < a.drain_timeout:
            time.sleep(0.2)
            rows = self.db.row_count(str(coupon))
        after, t1 = snapshot(pids), time.time()
        drain_s = round(t1 - k6_end, 1)
        cpu = cpu_seconds(pids, before, after)
        server_s = sum(cpu.values())
        achieved = accepted / seconds
        passed = accepted >= a.min_achieved * rate * seconds and phase["p95_ms"] <= a.p95_ms and k6["unexpected"] == 0
        # Little's law over k6's window: the time an issuance holds its slot, the time a request is
        # answered in, and the machine's busy cores
        service_s = ceilings.mean_seconds(metrics_before, metrics_after, "coupon_issuance_duration_seconds")
        response_s = ceilings.mean_seconds(
            metrics_before, metrics_after, "http_server_requests_seconds", 'uri="/api/v1/coupons/{couponId}/issuances"'
        )
        busy, total = (machine_after[0] - machine_before[0]), (machine_after[1] - machine_before[1])
        cores = os.cpu_count() or 1
        busy_cores = round(busy / total * cores, 2) if total else None
        step_ceilings = ceilings.ceilings(self.limits, service_s, response_s, per(cpu.get("consumer", 0), rows))
        s = {
            "label": label,
            "rate": rate,
            "seconds": seconds,
            "coupon_id": coupon,
            "quantity": quantity,
            "requests": k6["requests"],
            "accepted": accepted,
            "achieved_rps": round(achieved, 1),
            "achieved_share": round(accepted / (rate * seconds), 3),
            "dropped": phase["dropped"],
            "shed": k6["shed"],
            "unexpected": k6["unexpected"],
            "timed_out": k6["timed_out"],
            "p50_ms": phase["p50_ms"],
            "p95_ms": phase["p95_ms"],
            "p99_ms": phase["p99_ms"],
            "rows": rows,
            "drain_s": drain_s,
            "window_s": round(t1 - t0, 1),
            "k6_exit": proc.returncode,
            "passed": passed,
            "cpu_s": {**{k: round(v, 2) for k, v in sorted(cpu.items())}, "k6": round(k6_s, 2)},
            "cores_used": round((server_s + k6_s) / (t1 - t0), 2),
            "api_cpu_us_per_accepted": per(cpu.get("api", 0), accepted),
            "consumer_cpu_us_per_row": per(cpu.get("consumer", 0), rows),
            "kafka_cpu_us_per_accepted": per(cpu.get("kafka", 0), accepted),
            "redis_cpu_us_per_accepted": per(cpu.get("redis", 0), accepted),
            "mariadb_cpu_us_per_accepted": per(cpu.get("mariadb", 0), accepted),
            "k6_cpu_us_per_request": per(k6_s, k6["http_requests"]),
            "server_cpu_us_per_accepted": per(server_s, accepted),
            "loadavg": os.getloadavg()[0],
            "service_ms": round(service_s * 1000, 2) if service_s else None,
            "response_ms": round(response_s * 1000, 2) if response_s else None,
            "machine_busy_cores": busy_cores,
            "ceilings_rps": step_ceilings,
        }
        if not passed:
            s["ended_by"] = ceilings.ended_by(rate, busy_cores, cores, step_ceilings)
        if a.verify:
            # The invariants of every step (no over-issue, duplicate or lost 202); latency is the ladder's.
            vout = os.path.join(a.out, f"ladder-{index:02d}-verify.json")
            rc = subprocess.run(
                [
                    os.path.join(ROOT, "local", "verify.sh"),
                    "verify",
                    "--k6",
                    summary,
                    "--quantity",
                    str(quantity),
                    "--ignore-thresholds",
                    "--drain-timeout",
                    "30",
                    "--reconcile-timeout",
                    "10",
                    "--no-kafka",
                    "--out",
                    vout,
                ],
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
            ).returncode
            v = json.loads(open_text(vout))["verification"] if os.path.exists(vout) else {}
            s.update(
                {
                    "invariants_passed": int(rc == 0),
                    "over_issue": v.get("over_issue", -1),
                    "duplicates": v.get("duplicates", -1),
                    "lost_acceptances": v.get("lost_acceptances", -1),
                }
            )
        self.steps.append(s)
        log(
            f"{label} {rate}/s: accepted {accepted} ({s['achieved_share']:.1%}), p95 {s['p95_ms']} ms, "
            f"{'PASS' if passed else 'over capacity'}; CPU µs/accepted api {s['api_cpu_us_per_accepted']} "
            f"server {s['server_cpu_us_per_accepted']}, k6 µs/request {s['k6_cpu_us_per_request']}, "
            f"{s['cores_used']} cores ({busy_cores} busy on the machine), drain {drain_s}s; ceilings/s "
            + ", ".join(f"{k} {v:,.0f}" for k, v in step_ceilings.items() if v is not None)
            + ("" if passed else f"; ended by {s['ended_by']}")
        )
        time.sleep(a.pause)
        return passed

    def search(self):
        a = self.a
        if a.warmup_seconds > 0:
            self.step(a.warmup_rate, a.warmup_seconds, "warmup")
        if a.fixed:
            for r in a.fixed:
                self.step(r, a.step_seconds, "fixed")
            return None
        measured = lambda: len([s for s in self.steps if s["label"] != "warmup"])  # noqa: E731
        last_pass, first_fail, rate = None, None, a.start
        # Grow until a step fails (or, when the first fails, shrink until one passes).
        while measured() < a.max_steps:
            if self.step(rate, a.step_seconds, "grow" if last_pass or first_fail is None else "shrink"):
                last_pass = rate
                if first_fail is not None:
                    break
                rate = round(rate * a.growth)
            else:
                first_fail = rate
                if last_pass is not None:
                    break
                rate = max(10, round(rate / a.growth))
                if rate >= first_fail:
                    break
        # Bisect between the last pass and the first fail.
        while (
            last_pass
            and first_fail
            and (first_fail - last_pass) / last_pass > a.resolution
            and measured() < a.max_steps
        ):
            mid = round((last_pass + first_fail) / 2)
            if self.step(mid, a.step_seconds, "bisect"):
                last_pass = mid
            else:
                first_fail = mid
        return last_pass

    def result(self, capacity):
        out = {
            "capacity_rps": capacity or 0,
            "p95_limit_ms": self.a.p95_ms,
            "min_achieved": self.a.min_achieved,
            "step_seconds": self.a.step_seconds,
            "settings": self.limits,
            "ended_by": ceilings.ladder_end(self.steps, capacity),
            "steps": self.steps,
        }
        at = [s for s in self.steps if s["rate"] == capacity and s["passed"] and s["label"] != "warmup"]
        if at:
            cap = at[-1]
            for k in (
                "api_cpu_us_per_accepted",
                "consumer_cpu_us_per_row",
                "kafka_cpu_us_per_accepted",
                "redis_cpu_us_per_accepted",
                "mariadb_cpu_us_per_accepted",
                "k6_cpu_us_per_request",
                "server_cpu_us_per_accepted",
                "p50_ms",
                "p95_ms",
                "p99_ms",
                "achieved_rps",
                "cores_used",
            ):
                out[k] = cap[k]
        return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--start", type=int, default=int(os.environ.get("LADDER_START", 300)))
    p.add_argument("--growth", type=float, default=float(os.environ.get("LADDER_GROWTH", 1.5)))
    p.add_argument("--resolution", type=float, default=float(os.environ.get("LADDER_RESOLUTION", 0.05)))
    p.add_argument("--step-seconds", type=int, default=int(os.environ.get("STEP_SECONDS", 25)))
    p.add_argument("--warmup-rate", type=int, default=int(os.environ.get("WARMUP_RATE", 300)))
    p.add_argument("--warmup-seconds", type=int, default=int(os.environ.get("WARMUP_SECONDS", 45)))
    p.add_argument("--max-steps", type=int, default=int(os.environ.get("LADDER_MAX_STEPS", 10)))
    p.add_argument("--max-vus", type=int, default=int(os.environ.get("MAX_VUS", 3000)))
    p.add_argument("--p95-ms", type=float, default=float(os.environ.get("CAPACITY_P95_MS", 300)))
    p.add_argument("--min-achieved", type=float, default=float(os.environ.get("CAPACITY_MIN_ACHIEVED", 0.97)))
    p.add_argument("--drain-timeout", type=float, default=60)
    p.add_argument("--pause", type=float, default=3, help="seconds between steps")
    p.add_argument("--fixed", type=lambda s: [int(x) for x in s.split(",") if x], help="rates to run, no search")
    p.add_argument("--no-verify", dest="verify", action="store_false", help="skip the invariant checks per step")
    p.add_argument("--loadtests", default=os.environ.get("LOADTESTS_DIR", os.path.join(ROOT, "loadtests")))
    p.add_argument("--out", default=os.path.join(ROOT, "build", "bench"))
    p.add_argument("--settings", help="the settings in force (ceilings.py settings); default OUT/settings.json")
    a = p.parse_args(argv)
    a.settings = a.settings or os.path.join(a.out, "settings.json")
    ladder = Ladder(a)
    if not ladder.api.wait_ready(120):
        raise SystemExit(f"coupon-api at {ladder.settings.api_url} is not ready")
    capacity = ladder.search()
    res = ladder.result(capacity)
    with open(os.path.join(a.out, "ladder.json"), "w") as f:
        json.dump(res, f, indent=2)
    if not a.fixed:
        end = res["ended_by"]
        log(
            f"capacity_rps {res['capacity_rps']} (>= {a.min_achieved:.0%} accepted, p95 <= {a.p95_ms:.0f} ms)"
            + (f"; ended at {end['rate']}/s by {end['resource']}" if end else "; no step failed")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
