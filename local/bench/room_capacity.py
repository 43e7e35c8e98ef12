"""The waiting room's capacity phase of `make bench`: loadtests/waiting-room-capacity.js, with the
room's and Redis's CPU and Redis's memory read at the bounds of each step's phases.

k6 prints a line `WR_CAPACITY_MARK <scenario> start|end` at each bound (a join phase's first call
and the end of its last, a hold's first poll). At each, this reads utime + stime of every harness
process (local/bench/ladder.py: the PID files under RUN_DIR/pids), and at each hold's start (every
join of the step answered) and before k6 starts, `INFO` of every Redis node (its `role` and
`used_memory`, with redis-cli). It writes them, unjudged and undivided, to OUT/wr-capacity-cost.json;
local/bench/summary.py divides them by the joins and polls of k6's summary.

Run by local/bench.sh (the stack and the room up; k6's settings from the environment, as for
loadtests/run.sh: WR_URL, COUPON_ID, STEPS, JOIN_RATE, HOLD, USER_PREFIX):
  python3 local/bench/room_capacity.py --out build/bench
    -> OUT/wr-capacity-k6.json (k6's summary), wr-capacity-k6.log (its console output),
       wr-capacity-cost.json; the exit code is k6's."""

import argparse
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import ladder

MARK = re.compile(r"WR_CAPACITY_MARK (\S+) (start|end)")


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')} room-capacity] {msg}", file=sys.stderr, flush=True)


def redis_memory(host, names):
    """port -> {role, used_memory} of every Redis node of the harness that answers `INFO` (the
    ports from their PID files' names, redis-<port>)."""
    out = {}
    for name in names:
        if ladder.role(name) != "redis":
            continue
        port = name.rsplit("-", 1)[1]
        try:
            info = subprocess.run(
                ["redis-cli", "-h", host, "-p", port, "info"], capture_output=True, text=True, timeout=10
            ).stdout
        except (OSError, subprocess.TimeoutExpired):
            continue
        fields = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
        if "role" in fields and "used_memory" in fields:
            out[port] = {"role": fields["role"].strip(), "used_memory": int(fields["used_memory"])}
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=os.path.join(ladder.ROOT, "build", "bench"))
    p.add_argument("--loadtests", default=os.environ.get("LOADTESTS_DIR", os.path.join(ladder.ROOT, "loadtests")))
    a = p.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    pids = ladder.harness_pids(ladder.run_dir())
    if "waiting-room" not in pids:
        log("no waiting-room process among the harness's PID files: its CPU is not measured")
    host = os.environ.get("HARNESS_HOST", "127.0.0.1")
    marks = [{"name": "launch", "ticks": ladder.snapshot(pids), "redis_memory": redis_memory(host, pids)}]
    env = {**os.environ, "SUMMARY_PATH": os.path.join(a.out, "wr-capacity-k6.json")}
    with open(os.path.join(a.out, "wr-capacity-k6.log"), "w") as out:
        proc = subprocess.Popen(
            [os.path.join(a.loadtests, "run.sh"), "waiting-room-capacity.js"],
            cwd=ladder.ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
        )
        for line in proc.stdout:
            out.write(line)
            m = MARK.search(line)
            if not m:
                continue
            mark = {"name": m.group(1), "at": m.group(2), "ticks": ladder.snapshot(pids)}
            if m.group(1).startswith("hold-") and m.group(2) == "start":
                mark["redis_memory"] = redis_memory(host, pids)
            marks.append(mark)
            out.flush()
        rc = proc.wait()
    marks.append({"name": "exit", "ticks": ladder.snapshot(pids)})
    with open(os.path.join(a.out, "wr-capacity-cost.json"), "w") as f:
        json.dump({"marks": marks}, f, indent=2)
    log(f"k6 exited {rc}; {len(marks) - 2} phase bounds read (wr-capacity-cost.json)")
    return rc


if __name__ == "__main__":
    sys.exit(main())
