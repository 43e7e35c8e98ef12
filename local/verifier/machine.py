"""The machine under the harness: CPU share per harness process, a gauge of the host's speed, and
the CPU a command used (k6 in the benchmark)."""

import os
import re
import resource
import subprocess
import time

# Contract ports (docs/contract.md) -> the role listening there.
ROLES = {
    8080: "coupon-api",
    8090: "coupon-consumer",
    8070: "coupon-waiting-room",
    13306: "mariadb",
    **{p: "redis" for p in range(7001, 7010)},
    **{p: "kafka" for p in (19092, 19093, 19094)},
}


def harness_pids(offset):
    """role -> pids, found by the loopback ports of this PORT_OFFSET (so other harnesses on the same
    machine are not counted)."""
    want = {p + offset: r for p, r in ROLES.items()}
    out = subprocess.run(["ss", "-ltnpH"], capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        cols = line.split()
        if len(cols) < 6:
            continue
        port = cols[3].rsplit(":", 1)[1]
        if port.isdigit() and int(port) in want:
            for pid in re.findall(r"pid=(\d+)", line):
                found.setdefault(want[int(port)], set()).add(int(pid))
    return found


def ticks(pid):
    """utime + stime of a process in clock ticks, None once it is gone (also the benchmark's)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except OSError:
        return None


def machine_ticks():
    """(busy, total) clock ticks of the whole machine since boot (/proc/stat). Steal counts as busy:
    a core the hypervisor gave to another guest did no work here either."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + (v[4] if len(v) > 4 else 0)
    return sum(v) - idle, sum(v)


def cpu_snapshot(offset):
    busy, total = machine_ticks()
    return {
        "time": time.time(),
        "machine": {"busy": busy, "total": total},
        "roles": {r: {str(p): ticks(p) or 0 for p in sorted(pids)} for r, pids in harness_pids(offset).items()},
    }


def cpu_diff(before, extra_cpu_seconds=()):
    """Each role's share of the whole machine since `before`, in percent. `extra_cpu_seconds`:
    (name, seconds) of processes that ran and exited in between (k6)."""
    elapsed = time.time() - before["time"]
    hz = os.sysconf("SC_CLK_TCK")
    ncpu = os.cpu_count() or 1
    result = {}
    for role, pids in before["roles"].items():
        used = sum(max(0, (ticks(int(pid)) or 0) - t0) for pid, t0 in pids.items()) / hz
        result[role] = round(100.0 * used / elapsed / ncpu, 1)
    for name, secs in extra_cpu_seconds:
        result[name] = round(100.0 * float(secs) / elapsed / ncpu, 1)
    out = {"elapsed_s": round(elapsed, 1), "cores": ncpu, "percent_of_machine": result}
    if "machine" in before:
        busy, total = machine_ticks()
        b = before["machine"]
        out["machine_busy_percent"] = round(100.0 * (busy - b["busy"]) / max(1, total - b["total"]), 1)
        # what no role accounts for: k6, and anything else that ran on the machine
        out["other_percent"] = round(max(0.0, out["machine_busy_percent"] - sum(result.values())), 1)
    return out


def busy_cores(seconds):
    """The machine's busy cores, averaged over the next `seconds`."""
    b0, t0 = machine_ticks()
    time.sleep(seconds)
    b1, t1 = machine_ticks()
    return (os.cpu_count() or 1) * (b1 - b0) / max(1, t1 - t0)


def wait_quiet(max_cores, hold_s, timeout_s, step_s=0.5):
    """Waits until the machine has been busy at most `max_cores` cores for `hold_s` seconds on end,
    or `timeout_s` seconds have passed. Returns whether it got quiet, how long it waited, and the
    busy cores of the last step."""
    start = time.time()
    quiet_for = 0.0
    while True:
        busy = busy_cores(step_s)
        quiet_for = quiet_for + step_s if busy <= max_cores else 0.0
        waited = time.time() - start
        if quiet_for >= hold_s or waited >= timeout_s:
            return {"quiet": quiet_for >= hold_s, "waited_s": round(waited, 1), "busy_cores": round(busy, 2)}


def gauge():
    """How fast this shared host is right now; benchmark figures move with it, so each report
    carries it. `gauge_s`: one core's speed, 10 million Python additions. `wakeup_us`: a round trip
    between two processes over pipes, i.e. the cost of waking another process, which every request
    pays several times over (Redis, Kafka, the consumer) and which virtual machines make expensive."""
    start = time.perf_counter()
    total = 0
    for i in range(10_000_000):
        total += i
    gauge_s = round(time.perf_counter() - start, 3)
    ping_r, ping_w = os.pipe()
    pong_r, pong_w = os.pipe()
    rounds = 5000
    pid = os.fork()
    if pid == 0:
        for _ in range(rounds):
            os.read(ping_r, 1)
            os.write(pong_w, b"x")
        os._exit(0)
    start = time.perf_counter()
    for _ in range(rounds):
        os.write(ping_w, b"x")
        os.read(pong_r, 1)
    wakeup_us = round((time.perf_counter() - start) / rounds * 1e6, 1)
    os.waitpid(pid, 0)
    for fd in (ping_r, ping_w, pong_r, pong_w):
        os.close(fd)
    return {"gauge_s": gauge_s, "wakeup_us": wakeup_us}


def timed(command):
    """Runs a command; returns (its exit code, the CPU seconds, wall time and peak RSS of it and its
    children)."""
    start = time.time()
    rc = subprocess.call(command)
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return rc, {
        "cpu_s": round(ru.ru_utime + ru.ru_stime, 2),
        "wall_s": round(time.time() - start, 2),
        "max_rss_mb": round(ru.ru_maxrss / 1024),
        "rc": rc,
    }
