"""summary.json and summary.md of `make bench` from its parts: the capacity ladder (ladder.json), the
verifier's outputs of the spike, the sold-out storm and the waiting room's spike, the waiting room's
capacity run with its cost per step, and the host gauge.

  python3 local/bench/summary.py OUT_DIR      (reads OUT_DIR/ladder.json, spike.json, soldout.json,
                                               wr-spike.json, wr-capacity-k6.json,
                                               wr-capacity-cost.json, gauge.json, profile.json;
                                               writes OUT_DIR/summary.json, summary.md)

Figures are reported against the targets, never judged: the exit code is 1 only when a correctness
figure fails (an over-issue, a duplicate, a lost 202, a failed invariant of any phase). The
summary states the profile the run used (`profile`: its name and the settings in force) and what
ended the capacity ladder (`ladder_ended_by`: the CPU or the bound whose ceiling the rate reached)."""

import json
import os
import sys
from itertools import pairwise

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import harness_profile
from ladder import cpu_seconds, per

# figure -> (target, "<=" or ">="): docs/performance.md
TARGETS = {
    "capacity_rps": (2400, ">="),
    "api_cpu_us_per_accepted": (250, "<="),
    "consumer_cpu_us_per_row": (100, "<="),
    "server_cpu_us_per_accepted": (300, "<="),
}
# The waiting room's figures (docs/waiting-room.md), judged like the above only when its phase ran.
ROOM_TARGETS = {
    "wr_join_p95_ms": (50, "<="),
    "wr_poll_p95_ms": (50, "<="),
    "wr_max_waiting_users": (100000, ">="),
    "wr_order_inversions": (0, "<="),
    "wr_eta_error_p90_pct": (20, "<="),
}
# The waiting room's cost at the largest step held (wr_max_waiting_users), reported, not judged:
# summary figure -> the field of its step in wr_capacity_steps (room_cost).
ROOM_COST = {
    "wr_room_cpu_us_per_join": "room_cpu_us_per_join",
    "wr_room_cpu_us_per_poll": "room_cpu_us_per_poll",
    "wr_redis_cpu_us_per_poll": "redis_cpu_us_per_poll",
    "wr_redis_bytes_per_waiting_user": "redis_bytes_per_waiting_user",
}
# the room's PID file (local/services.sh), so its role in ladder.cpu_seconds
ROOM = "waiting-room"
CPU = [
    "api_cpu_us_per_accepted",
    "consumer_cpu_us_per_row",
    "kafka_cpu_us_per_accepted",
    "redis_cpu_us_per_accepted",
    "mariadb_cpu_us_per_accepted",
    "server_cpu_us_per_accepted",
    "k6_cpu_us_per_request",
]


def load(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def meets(name, value):
    target, way = {**TARGETS, **ROOM_TARGETS}[name]
    return value is not None and (value >= target if way == ">=" else value <= target)


def phase_windows(marks):
    """scenario -> (ticks at its start mark, ticks at the next mark) from the marks
    local/bench/room_capacity.py read: a join phase ends after its last join (without that mark,
    when its hold starts), a hold when the next step's joins start or k6 exits."""
    return {m["name"]: (m["ticks"], n["ticks"]) for m, n in pairwise(marks) if m.get("at") == "start"}


def masters_memory(nodes):
    """(the masters' ports, the sum of their used_memory) of one reading of the Redis nodes (port ->
    role, used_memory); None without a master. The masters hold each key once (the replicas copy
    them: the cluster holds three times as much)."""
    masters = {p: n["used_memory"] for p, n in (nodes or {}).items() if n.get("role") == "master"}
    return (sorted(masters), sum(masters.values())) if masters else None


def bytes_per_user(before, after, users):
    """The masters' used memory after a step's joins minus before them, per user joined; None without
    both readings, without users, or when the masters changed in between (a failover)."""
    if not (before and after and users) or before[0] != after[0]:
        return None
    return round((after[1] - before[1]) / users, 1)


def per_role(cpu, role, count):
    """µs of a role's CPU (cpu_seconds) per call; None when it was not measured or no call was made."""
    return per(cpu[role], count) if cpu and role in cpu else None


def room_cost(steps, record):
    """k6's capacity steps (waiting, joins, polls, ...) with the cost of each from the marks of
    wr-capacity-cost.json (local/bench/room_capacity.py): the room's and Redis's (every node's) CPU
    over the step's join phase per join and over its hold per poll, and the Redis masters' used
    memory when the hold starts minus that of the step before (of the run's start for the first),
    per user the step joined. A figure that cannot be had is None."""
    marks = (record or {}).get("marks", [])
    windows = phase_windows(marks)
    memory = {m["name"]: masters_memory(m["redis_memory"]) for m in marks if "redis_memory" in m}

    def cpu(name):
        w = windows.get(name)
        return cpu_seconds(w[0], *w) if w else None

    out, before = [], memory.get("launch")
    for s in steps:
        joins, polls = s.get("joins"), s.get("polls")
        join, hold = cpu(f"join-{s['waiting']}"), cpu(f"hold-{s['waiting']}")
        after = memory.get(f"hold-{s['waiting']}")
        out.append(
            {
                **s,
                "room_cpu_us_per_join": per_role(join, ROOM, joins),
                "room_cpu_us_per_poll": per_role(hold, ROOM, polls),
                "redis_cpu_us_per_join": per_role(join, "redis", joins),
                "redis_cpu_us_per_poll": per_role(hold, "redis", polls),
                "redis_used_memory_masters": after[1] if after else None,
                "redis_bytes_per_waiting_user": bytes_per_user(before, after, joins),
                "cpu_s": {
                    phase: {k: round(v, 2) for k, v in sorted(c.items())}
                    for phase, c in (("join", join), ("hold", hold))
                    if c is not None
                },
            }
        )
        before = after
    return out


def waiting_room(spike, capacity, cost=None):
    """The waiting room's figures from its spike (the verifier's output) and its capacity run (k6's
    summary, with the marks of its cost when they were read); only those of the parts that ran."""
    out = {}
    if spike:
        k6, room = spike["k6"], spike["verification"].get("waiting_room", {})
        out.update(
            {
                "wr_users": k6.get("users"),
                "wr_join_p95_ms": k6.get("wr_join_p95_ms"),
                "wr_poll_p95_ms": k6.get("wr_poll_p95_ms"),
                "wr_answer_p95_ms": k6.get("wr_answer_p95_ms"),
                "wr_queued": room.get("queued"),
                "wr_admitted": room.get("admitted"),
                "wr_order_inversions": room.get("order_inversions"),
                "wr_eta_error_p90_pct": room.get("eta_error_p90_pct"),
                "wr_eta_samples": room.get("eta_samples"),
                "wr_soldout_propagation_s": room.get("soldout_propagation_s"),
            }
        )
    if capacity:
        held = capacity.get("wr_max_waiting_users", 0)
        steps = capacity.get("wr_capacity_steps", [])
        out["wr_max_waiting_users"] = held
        out["wr_capacity_steps"] = room_cost(steps, cost) if cost else steps
        at = [s for s in out["wr_capacity_steps"] if s["waiting"] == held]
        for k, field in ROOM_COST.items():
            out[k] = at[-1].get(field) if at else None
    return out


def verified(phase):
    """A phase's correctness figures, as the ladder's steps carry them."""
    return {**phase["verification"], "invariants_passed": int(phase["verification"]["passed"])}


def summarize(ladder, spike, soldout, gauge, wr_spike=None, wr_capacity=None, profile=None, wr_cost=None):
    out = {"capacity_rps": ladder.get("capacity_rps", 0) if ladder else 0}
    if profile:
        out["profile"] = profile
    if ladder:
        out["ladder_ended_by"] = ladder.get("ended_by")
        out["ladder_settings"] = ladder.get("settings", {})
        for k in CPU + ["p50_ms", "p95_ms", "p99_ms", "achieved_rps", "cores_used"]:
            if k in ladder:
                out[k if k in CPU else f"capacity_{k}"] = ladder[k]
        out["ladder_steps"] = len(ladder["steps"])
    phases = [("ladder", s) for s in (ladder or {}).get("steps", [])]
    for name, v in (("spike", spike), ("soldout", soldout)):
        if v:
            k6 = v["k6"]
            out.update(
                {
                    f"{name}_users": k6.get("users", k6.get("requesters")),
                    f"{name}_requests": k6["requests"],
                    f"{name}_accepted": k6["accepted"],
                    f"{name}_all_answered_s": k6.get("all_answered_s", -1),
                    f"{name}_p50_ms": k6["p50_ms"],
                    f"{name}_p95_ms": k6["p95_ms"],
                    f"{name}_p99_ms": k6["p99_ms"],
                    f"{name}_shed": k6["shed"],
                    f"{name}_gave_up": k6["gave_up"],
                    f"{name}_unexpected": k6["unexpected"],
                }
            )
            if name == "spike":
                out.update(
                    {
                        "spike_vus": k6["vus_peak"],
                        "spike_drain_seconds": v["verification"]["drain_seconds"],
                        "spike_persist_rps": v["verification"]["persist_rps"],
                    }
                )
            phases.append((name, verified(v)))
    room = waiting_room(wr_spike, wr_capacity, wr_cost)
    out.update(room)
    if wr_spike:
        phases.append(("wr_spike", verified(wr_spike)))
    # Correctness over every phase.
    for k in ("over_issue", "duplicates", "lost_acceptances"):
        out[k] = sum(max(0, p.get(k, 0)) for _, p in phases)
    out["invariants_passed"] = int(
        all(
            p.get("invariants_passed", 1) == 1
            and min(p.get("over_issue", 0), p.get("duplicates", 0), p.get("lost_acceptances", 0)) >= 0
            for _, p in phases
        )
    )
    out["correct"] = int(
        out["invariants_passed"] and not (out["over_issue"] or out["duplicates"] or out["lost_acceptances"])
    )
    if gauge:
        out["machine_gauge_s"] = gauge["gauge_s"]
        out["machine_wakeup_us"] = gauge.get("wakeup_us", -1)
    for k in TARGETS:
        out[f"meets_{k}"] = int(meets(k, out.get(k)))
    for k in ROOM_TARGETS:
        if k in room:
            out[f"meets_{k}"] = int(meets(k, out.get(k)))
    return out


def fmt(v, unit=""):
    return "–" if v is None else f"{v:,.0f}{unit}"


def ceilings_text(step):
    return ", ".join(f"{k} {v:,.0f}" for k, v in (step.get("ceilings_rps") or {}).items() if v is not None) or "-"


def markdown(out, ladder):
    md = []
    if out.get("profile"):
        md += [harness_profile.describe(out["profile"]).rstrip(), ""]
    md += ["| figure | target | measured |", "|---|---:|---:|"]
    for k, (target, way) in TARGETS.items():
        md.append(f"| `{k}` | {way} {target:,} | {fmt(out.get(k))} ({'met' if out[f'meets_{k}'] else 'not met'}) |")
    for k in CPU:
        if k not in TARGETS:
            md.append(f"| `{k}` | | {fmt(out.get(k))} |")
    md += [
        "",
        f"Capacity: {out['capacity_rps']:,}/s offered held with p95 {fmt(out.get('capacity_p95_ms'), ' ms')} "
        f"(p50 {fmt(out.get('capacity_p50_ms'), ' ms')}, p99 {fmt(out.get('capacity_p99_ms'), ' ms')}).",
        "",
        "| step | offered/s | accepted/s | p95 ms | p99 ms | held | API µs | consumer µs/row | Kafka µs | "
        "Redis µs | MariaDB µs | server µs | k6 µs/req | cores | slot ms | ceilings/s (Little's law) | ended by |",
        "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for s in (ladder or {}).get("steps", []):
        md.append(
            f"| {s['label']} | {s['rate']:,} | {s['achieved_rps']:,.0f} | {s['p95_ms']:,.0f} | {s['p99_ms']:,.0f} | "
            f"{'yes' if s['passed'] else 'no'} | {fmt(s['api_cpu_us_per_accepted'])} | "
            f"{fmt(s['consumer_cpu_us_per_row'])} | {fmt(s['kafka_cpu_us_per_accepted'])} | "
            f"{fmt(s['redis_cpu_us_per_accepted'])} | {fmt(s['mariadb_cpu_us_per_accepted'])} | "
            f"{fmt(s['server_cpu_us_per_accepted'])} | {fmt(s['k6_cpu_us_per_request'])} | {s['cores_used']} | "
            f"{fmt(s.get('service_ms'))} | {ceilings_text(s)} | {s.get('ended_by', '')} |"
        )
    end = out.get("ladder_ended_by")
    if ladder:
        md += [
            "",
            f"The ladder ended at {end['rate']:,}/s, by {end['resource']}."
            if end
            else "No step of the ladder failed: its end was not reached.",
        ]
    md.append("")
    if "spike_requests" in out:
        md.append(
            f"Spike: {out['spike_users']:,} users on {out['spike_vus']:,} VUs; every user had a final answer "
            f"{out['spike_all_answered_s']} s after the first POST (p50 {fmt(out['spike_p50_ms'], ' ms')}, "
            f"p95 {fmt(out['spike_p95_ms'], ' ms')}, {out['spike_shed']:,} answers 503 and retried, "
            f"{out['spike_gave_up']} gave up, {out['spike_unexpected']} unexpected); consumer lag drained "
            f"{out['spike_drain_seconds']} s after k6 ended."
        )
    if "soldout_requests" in out:
        md.append(
            f"Sold-out storm: {out['soldout_requests']:,} requests, every user answered within "
            f"{out['soldout_all_answered_s']} s (p95 {fmt(out['soldout_p95_ms'], ' ms')})."
        )
    room = [k for k in ROOM_TARGETS if k in out]
    if room:
        md += ["", "Waiting room:", "", "| figure | target | measured |", "|---|---:|---:|"]
        for k in room:
            target, way = ROOM_TARGETS[k]
            value = "–" if out[k] is None else f"{out[k]:,}"
            md.append(f"| `{k}` | {way} {target:,} | {value} ({'met' if out[f'meets_{k}'] else 'not met'}) |")
        if "wr_users" in out:
            md.append(f"| `wr_soldout_propagation_s` | | {out.get('wr_soldout_propagation_s')} |")
        at = f" (at {out['wr_max_waiting_users']:,} waiting)" if out.get("wr_max_waiting_users") else ""
        for k in ROOM_COST:
            if k in out:
                md.append(f"| `{k}`{at} | | {fmt(out[k])} |")
        md.append("")
        if "wr_users" in out:
            md.append(
                f"Spike through the waiting room: {out['wr_users']:,} users, {out['wr_queued']:,} queued, "
                f"{out['wr_admitted']:,} admitted; a user's first answer p95 "
                f"{fmt(out['wr_answer_p95_ms'], ' ms')}; ETA error over {out['wr_eta_samples']} estimates."
            )
        if out.get("wr_capacity_steps"):
            md += [""] if md[-1] else []
            md += [
                "| waiting users | joins | join p95 ms | polls | poll p95 ms | poll p99 ms | room µs/join | "
                "room µs/poll | Redis µs/join | Redis µs/poll | Redis bytes/waiting user |",
                "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
            ]
        for s in out.get("wr_capacity_steps", []):
            md.append(
                f"| {s['waiting']:,} | {fmt(s.get('joins'))} | {s['join_p95_ms']:.1f} | {s['polls']:,} | "
                f"{s['poll_p95_ms']:.1f} | {s['poll_p99_ms']:.1f} | {fmt(s.get('room_cpu_us_per_join'))} | "
                f"{fmt(s.get('room_cpu_us_per_poll'))} | {fmt(s.get('redis_cpu_us_per_join'))} | "
                f"{fmt(s.get('redis_cpu_us_per_poll'))} | {fmt(s.get('redis_bytes_per_waiting_user'))} |"
            )
        md.append("")
    md.append(
        f"Correctness over every phase: over-issue {out['over_issue']}, duplicates {out['duplicates']}, "
        f"lost 202s {out['lost_acceptances']}, invariants {'PASS' if out['invariants_passed'] else 'FAIL'}."
    )
    if "machine_gauge_s" in out:
        md.append(
            f"Host gauge before the run: 10 million Python additions in {out['machine_gauge_s']} s, a process "
            f"wake-up round trip {out['machine_wakeup_us']} µs (slower means a busier host)."
        )
    return "\n".join(md) + "\n"


def main(argv):
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    d = argv[0]
    ladder = load(os.path.join(d, "ladder.json"))
    out = summarize(
        ladder,
        load(os.path.join(d, "spike.json")),
        load(os.path.join(d, "soldout.json")),
        load(os.path.join(d, "gauge.json")),
        load(os.path.join(d, "wr-spike.json")),
        load(os.path.join(d, "wr-capacity-k6.json")),
        load(os.path.join(d, "profile.json")),
        load(os.path.join(d, "wr-capacity-cost.json")),
    )
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump(out, f, indent=2)
    text = markdown(out, ladder)
    with open(os.path.join(d, "summary.md"), "w") as f:
        f.write(text)
    print(text)
    return 0 if out["correct"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
