"""The verifier's command line (local/verify.sh SUBCOMMAND ...).

  token     print an HS256 JWT (user, or admin with --admin)
  register  create/replace a coupon through the admin API (opening now unless told otherwise)
  verify    after a k6 run: wait for the consumer to drain, then check the invariants against
            MariaDB, the admin reconciliation endpoint and the Kafka consumer group; print a summary
            with PASS/FAIL per invariant, write it as JSON, exit 1 on any FAIL; with --journeys
            (loadtests/waiting-room.js) also the waiting room's invariants and figures
  cpu       snapshot / diff CPU ticks of the harness processes (found by their listening ports) and
            of the machine; watch: the diff over the next --for (+ --tail) written to a file
  quiet     wait until the machine is quiet (at most --max-cores busy for --hold seconds on end)
  gauge     how fast the host is right now (core speed, process wake-up round trip)
  report    the benchmark's summary.json (numbers only) and markdown table from the phases
  timed     run a command and record the CPU seconds it used (k6 in the benchmark)

Connection settings come from the environment the harness prints (`local/infra.sh env`) plus
PORT_OFFSET: API_URL, DB_URL, DB_USER, DB_PASSWORD, KAFKA_BOOTSTRAP, JWT_SECRET.
"""

import argparse
import json
import os
import re
import sys
import time

import harness_profile

from . import machine, report, tokens, waiting_room
from .harness import Api, Database, log, settled_lag
from .invariants import Observed, evaluate, parse_outcomes, verification
from .settings import Settings


def duration_ms(text):
    """A Spring duration as the scripts pass it to the waiting room (2s, 2000ms, or plain ms)."""
    m = re.fullmatch(r"(\d+)(ms|s)?", text.strip())
    if not m:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (e.g. 2s, 2000ms)")
    return int(m[1]) * (1000 if m[2] == "s" else 1)


def parser():
    p = argparse.ArgumentParser(
        prog="local/verify.sh", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("token")
    t.add_argument("--sub", default="admin")
    t.add_argument("--admin", action="store_true")
    r = sub.add_parser("register")
    r.add_argument("--coupon", required=True)
    r.add_argument("--quantity", type=int, required=True)
    r.add_argument("--opens-in", type=float, default=0)
    r.add_argument("--duration", type=float, default=3600)
    r.add_argument("--wait-ready", type=float, default=120)
    v = sub.add_parser("verify")
    v.add_argument("--k6", help="the k6 summary JSON (SUMMARY_PATH)")
    v.add_argument("--coupon")
    v.add_argument("--quantity", type=int)
    v.add_argument("--drain-timeout", type=float, default=120)
    v.add_argument("--reconcile-timeout", type=float, default=30)
    v.add_argument("--lag-timeout", type=float, default=30, help="seconds for the group's lag to reach 0")
    v.add_argument("--no-kafka", action="store_true", help="skip the consumer-group lag check")
    v.add_argument("--ignore-thresholds", action="store_true", help="k6 thresholds are reported, not judged")
    v.add_argument(
        "--latency-reported",
        action="store_true",
        help="latency thresholds are reported, not judged (failure thresholds still are)",
    )
    v.add_argument(
        "--outcomes",
        action="append",
        default=[],
        help="k6 console output with ISSUE_OUTCOME lines (LOG_OUTCOMES=1), once per k6 run: the 202s "
        "and rows are then compared per user, not counted",
    )
    v.add_argument("--journeys", help="k6 console output of waiting-room.js (WR_JOURNEY lines)")
    v.add_argument(
        "--sub-window",
        type=duration_ms,
        default=6000,
        dest="sub_window_ms",
        help="the zone's sub-window as the waiting room is configured with it (2s, 2000ms): order slack",
    )
    v.add_argument("--eta-p90-max", type=float, default=0.20, help="ETA error p90 target (ratio)")
    v.add_argument(
        "--eta-reported",
        action="store_true",
        help="report the ETA error against its target instead of judging it (make bench)",
    )
    v.add_argument("--spike-cpu", help="cpu watch output over the spike's arrivals: reported with the summary")
    v.add_argument("--profile", help="the harness profile in force (local/harness_profile.py json): in the summary")
    v.add_argument("--out")
    c = sub.add_parser("cpu")
    c.add_argument("action", choices=["snapshot", "diff", "watch"])
    c.add_argument("file")
    c.add_argument("--cpu-seconds", action="append", help="NAME=SECONDS of a process that ran in between (diff)")
    c.add_argument("--for", type=duration_ms, default=10000, dest="for_ms", help="watch: how long (10s, 500ms)")
    c.add_argument("--tail", type=duration_ms, default=0, dest="tail_ms", help="watch: and this much longer")
    q = sub.add_parser("quiet", help="wait until the machine is quiet, at most --timeout seconds")
    q.add_argument("--max-cores", type=float, default=0.5)
    q.add_argument("--hold", type=float, default=3.0, help="seconds on end")
    q.add_argument("--timeout", type=float, default=60.0)
    rp = sub.add_parser("report")
    for name in ("--main", "--soldout", "--json", "--markdown"):
        rp.add_argument(name, required=True)
    rp.add_argument("--cpu")
    rp.add_argument("--sustained", help="verify output of the constant-arrival-rate phase")
    rp.add_argument("--gauge", help="output of the gauge subcommand taken before the run")
    sub.add_parser("gauge", help="seconds one core takes for 10 million additions in Python")
    tm = sub.add_parser("timed")
    tm.add_argument("--out", required=True)
    tm.add_argument("command", nargs=argparse.REMAINDER)
    return p


def load(path):
    with open(path) as f:
        return json.load(f)


def load_if_present(path):
    return load(path) if path and os.path.exists(path) else None


def write_json(path, obj, **kw):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, **kw)


def verify(a, settings):
    k6 = load(a.k6) if a.k6 else {}
    coupon = int(a.coupon or k6.get("coupon_id"))
    accepted = int(k6.get("accepted", 0))
    log(f"coupon {coupon}: k6 saw {accepted} accepted, {int(k6.get('requesters', 0))} users with a final answer")
    db = Database(settings)
    try:
        rows, drain = db.wait_drained(coupon, accepted, a.drain_timeout)
        issued, span = db.issued(coupon), db.persist_span(coupon)
    finally:
        db.close()
    rec = Api(settings).settled_reconciliation(coupon, a.reconcile_timeout)
    lag = None
    if not a.no_kafka:
        lag, why = settled_lag(settings, a.lag_timeout)
        if lag is None:
            log(f"consumer lag not checked: {why}")
    outcomes = None
    if a.outcomes:
        lines = []
        for path in a.outcomes:
            with open(path, errors="replace") as f:
                lines.extend(f)
        outcomes = parse_outcomes(lines)
    observed = Observed(
        coupon=coupon,
        quantity=a.quantity,
        rows=rows,
        issued=issued,
        k6=k6,
        drain_seconds=drain,
        persist_span_s=span,
        reconciliation=rec,
        lag=lag,
        group=settings.group,
        judge_thresholds=not a.ignore_thresholds,
        latency_reported=a.latency_reported,
        outcomes=outcomes,
    )
    checks = evaluate(observed)
    room = None
    if a.journeys:
        room = waiting_room.RoomObserved(
            waiting_room.load_journeys(a.journeys),
            a.sub_window_ms,
            [u for u, _ in issued],
            eta_error_p90_max=a.eta_p90_max,
            eta_reported=a.eta_reported,
        )
        checks = checks + waiting_room.evaluate(room)
    res = verification(observed, checks)
    if room is not None:
        res["waiting_room"] = room.figures()
    sys.stdout.write(report.event_summary(k6, res, checks))
    if room is not None:
        sys.stdout.write(waiting_room_summary(k6, res["waiting_room"]))
    if a.spike_cpu and os.path.exists(a.spike_cpu):
        res["spike_cpu"] = load(a.spike_cpu)
        sys.stdout.write(spike_cpu_summary(res["spike_cpu"]))
    profile = load(a.profile) if a.profile else None
    if profile is not None:
        sys.stdout.write(harness_profile.describe(profile))
    sys.stdout.flush()
    if a.out:
        write_json(a.out, {"k6": k6, "verification": res, **({"profile": profile} if profile else {})}, indent=2)
    return 0 if res["passed"] else 1


def waiting_room_summary(k6, f):
    return (
        f"  waiting room: {f['journeys']} users, {f['queued']} queued (at most {f['max_waiting_users']} at once), "
        f"{f['admitted']} admitted, {f['issued']} issued, {f['told_sold_out']} told sold out\n"
        f"  join p95 {k6.get('wr_join_p95_ms')} ms, poll p95 {k6.get('wr_poll_p95_ms')} ms, "
        f"first answer p95 {k6.get('wr_answer_p95_ms')} ms (max {k6.get('wr_answer_max_ms')} ms)\n"
        f"  order inversions {f['order_inversions']}, ETA error p90 {f['eta_error_p90_pct']}% "
        f"({f['eta_samples']} users), sold-out propagation {f['soldout_propagation_s']} s "
        f"(p95 {f['soldout_propagation_p95_s']} s, {f['soldout_told_waiting_users']} waiting users)\n"
    )


def spike_cpu_summary(c):
    """The arrivals' CPU in cores: whether the machine had room to spare when the answers came."""
    cores = c["cores"]
    roles = sorted(c["percent_of_machine"].items(), key=lambda x: -x[1])
    parts = [f"{r} {p * cores / 100:.2f}" for r, p in roles]
    if "other_percent" in c:
        parts.append(f"k6 and the rest {c['other_percent'] * cores / 100:.2f}")
    busy = c.get("machine_busy_percent")
    head = f"{busy * cores / 100:.2f} of {cores} cores busy" if busy is not None else f"{cores} cores"
    return f"  the arrivals' CPU ({c['elapsed_s']} s): {head}; " + ", ".join(parts) + "\n"


def bench_report(a):
    out = report.bench_summary(
        load(a.main),
        load(a.soldout),
        sustained=load_if_present(a.sustained),
        cpu=load_if_present(a.cpu),
        gauge=load_if_present(a.gauge),
        cores=os.cpu_count() or 1,
    )
    text = report.bench_markdown(out, load_if_present(a.cpu))
    write_json(a.json, out, indent=2)
    with open(a.markdown, "w") as f:
        f.write(text)
    print(text)
    return 0


def main(argv=None):
    a = parser().parse_args(argv)
    settings = Settings.from_env()
    if a.cmd == "token":
        print(tokens.token(a.sub, settings.secret, admin=a.admin))
    elif a.cmd == "register":
        api = Api(settings)
        if a.wait_ready and not api.wait_ready(a.wait_ready):
            raise SystemExit(f"coupon-api at {settings.api_url} not ready within {a.wait_ready}s")
        api.register(a.coupon, a.quantity, a.opens_in, a.duration)
    elif a.cmd == "verify":
        return verify(a, settings)
    elif a.cmd == "report":
        return bench_report(a)
    elif a.cmd == "timed":
        rc, usage = machine.timed(a.command)
        write_json(a.out, usage)
        return rc
    elif a.cmd == "gauge":
        print(json.dumps(machine.gauge()))
    elif a.cmd == "quiet":
        q = machine.wait_quiet(a.max_cores, a.hold, a.timeout)
        state = "quiet" if q["quiet"] else "still busy, going on"
        log(
            f"machine {state} after {q['waited_s']} s: {q['busy_cores']} of {os.cpu_count()} cores busy "
            f"(at most {a.max_cores} for {a.hold} s wanted)"
        )
    elif a.action == "snapshot":
        write_json(a.file, machine.cpu_snapshot(settings.offset))
    elif a.action == "watch":
        before = machine.cpu_snapshot(settings.offset)
        time.sleep((a.for_ms + a.tail_ms) / 1000)
        write_json(a.file, machine.cpu_diff(before))
    else:
        extra = [tuple(e.split("=", 1)) for e in a.cpu_seconds or []]
        json.dump(machine.cpu_diff(load(a.file), extra), sys.stdout)
        print()
    return 0
