"""The waiting room's fault scenarios (issue #37): faults.py adds `scenarios(faults)` to its table.

Both run a queued spike through the room (loadtests/waiting-room.js, zone mode `on`, a low
budget) beside faults.py's main wave, whose users issue WITHOUT an entry token (skippers): while the
zone queues, the API must refuse every one of them (403 ENTRY_REQUIRED). Judged besides the
verifier's per-user checks (every 202 a row, the room's users' 202s included: waiting-room.js prints
ISSUE_OUTCOME lines with LOG_OUTCOMES=1):

- room-kill-failover: the room SIGKILLed and restarted ROOM_DOWN_S later, then the Redis master holding the zone's keys
  SIGKILLed (failover to its replica). Nobody loses their place: the zone's queue and admitted set
  read before and after each fault (every user queued before is queued after at the same first
  arrival and no further back, or admitted), every room user's visit ends (admitted and answered,
  or told SOLD_OUT), in arrival order; no skipper answered 202 while the queue was on.
- zone-flood: thousands of unknown coupon ids joined and polled while a real zone queues. The gate
  never lapses and is renewed within GATE_RENEW_BUDGET_S, no skipper answered 202, the unknown ids
  are refused (404 COUPON_NOT_FOUND) and leave no Redis key and no meter.
"""

import http.client
import json
import os
import random
import re
import subprocess
import threading
import time

ROOM_PORT_BASE, ROOM_MGMT_BASE = 8070, 8071
ROOM_USER_OFFSET = 200_000  # user ids of the room's wave: USER_PREFIX + (200000 + n)
# The tick renews the gate every second; under the flood (and on two shared cores) a renewal may be
# late, but never by more than this (a third of the gate's TTL).
GATE_RENEW_BUDGET_S = 5.0
# The room stays down this long before it is started again (a crash-loop back-off, a node lost), so
# that with its own start (25-85 s here) the users' polls fail for about a minute: as long as the
# room purges a silent user after (purge-after 60 s), and well within the gate's TTL.
ROOM_DOWN_S = 20
FLOOD_IDS = int(os.environ.get("ZONE_FLOOD_IDS") or 3000)
FLOOD_THREADS = 8


def scenarios(f):
    """The room's scenarios, built on faults.py's module `f` (Scenario, Run, the harness calls)."""
    room = Room(f)
    return [
        f.Scenario(
            "room-kill-failover",
            f"Waiting room SIGKILLed, restarted {ROOM_DOWN_S} s later, then its Redis "
            "master failed over, under a queued spike",
            "long",
            quantity=400,
            rate=2,
            duration=180,
            inject=room.kill_and_failover,
            checks=room.kill_checks,
            settle_timeout=180,
        ),
        f.Scenario(
            "zone-flood",
            f"{FLOOD_IDS} unknown coupon ids joined and polled while a real zone queues",
            "short",
            quantity=150,
            rate=2,
            duration=45,
            inject=room.flood,
            checks=room.flood_checks,
        ),
    ]


def redis_cli(port, *args, timeout=5):
    res = subprocess.run(["redis-cli", "-c", "-p", str(port), *args], capture_output=True, text=True, timeout=timeout)
    return res.stdout if res.returncode == 0 else None


class GateProbe(threading.Thread):
    """Twice a second: the coupon's gate key in the issuance Redis (its PTTL: -2 absent). Marks
    gate_on the first time it is seen."""

    def __init__(self, f, run):
        super().__init__(daemon=True)
        self.f, self.run_, self.samples, self.stop = f, run, [], threading.Event()
        self.key = f"{{coupon:{run.coupon}}}:gate"

    def pttl(self):
        for port in self.f.REDIS_PORTS:
            try:
                out = redis_cli(port, "PTTL", self.key, timeout=2)
            except subprocess.TimeoutExpired:
                continue
            if out and out.strip().lstrip("-").isdigit():
                return int(out.strip())
        return None

    def run(self):
        while not self.stop.is_set():
            t = time.time()
            ttl = self.pttl()
            self.samples.append((t, ttl))
            if ttl is not None and ttl > 0 and self.run_.mark_time("gate_on") is None:
                self.run_.mark("gate_on", f"{self.key} set, PTTL {ttl} ms")
            self.stop.wait(max(0.0, 0.5 - (time.time() - t)))

    def window(self, start, end):
        """(seconds the gate was absent, the longest a renewal was late in s, samples) in [start, end)."""
        inside = [(t, ttl) for t, ttl in self.samples if start <= t < end and ttl is not None]
        absent = sum(0.5 for _, ttl in inside if ttl < 0)
        late = max(((self.ttl_ms() - ttl) / 1000 for _, ttl in inside if ttl > 0), default=None)
        return absent, late, len(inside)

    def ttl_ms(self):
        """The gate's TTL as the room sets it (ZoneTicker.GATE_TTL_MS): the most PTTL seen, in whole s."""
        return -(-max((ttl for _, ttl in self.samples if ttl), default=0) // 1000) * 1000


class Room:
    def __init__(self, f):
        self.f = f
        self.port = ROOM_PORT_BASE + f.OFFSET
        self.mgmt = ROOM_MGMT_BASE + f.OFFSET
        self.url = f"http://127.0.0.1:{self.port}"

    # ---- the harness's room -----------------------------------------------------------------------

    def up(self):
        if not self.f.ready(self.mgmt):
            self.f.services("up", "waiting-room")

    def zone(self, coupon, body):
        status, answer = self.f.http(
            "PUT",
            f"{self.url}/api/v1/admin/waiting-room/zones/coupon-{coupon}",
            bearer=self.f.ADMIN,
            body=body,
            timeout=10,
        )
        if status != 200:
            raise RuntimeError(f"PUT zone coupon-{coupon}: {status} {answer}")

    def keys(self, coupon):
        """The zone's queue and admitted set, ({user: first arrival ms}, {user: admission ms}), and
        whether the zone holds the coupon sold out (its waiting users then leave at their next poll)."""

        def ask(*args):
            for port in self.f.REDIS_PORTS:
                try:
                    text = redis_cli(port, *args, timeout=10)
                except subprocess.TimeoutExpired:
                    continue
                if text is not None:
                    return text.split("\n")[:-1]
            return []

        out = []
        for suffix in ("q", "adm"):
            lines = ask("ZRANGE", f"wr:{{coupon-{coupon}}}:{suffix}", "0", "-1", "WITHSCORES")
            out.append({lines[i]: float(lines[i + 1]) for i in range(0, len(lines) - 1, 2)})
        return out + [ask("SISMEMBER", f"wr:{{coupon-{coupon}}}:soldout", str(coupon)) == ["1"]]

    def start(self, run, users, budget, ramp):
        """The gate probe, then the room's wave: USERS join the zone (mode on, this budget), poll as
        told and issue with their entry tokens."""
        self.up()
        run.gate = GateProbe(self.f, run)
        run.gate.start()
        run.wave(
            "room",
            "waiting-room.js",
            {
                "WR_URL": self.url,
                "USERS": users,
                "RAMP": ramp,
                "MAX_WAIT": "4m",
                "WR_MODE": "on",
                "WR_BUDGET": budget,
                "USER_OFFSET": ROOM_USER_OFFSET,
                "SHED_RETRIES": 5,
                "USERS_PER_VU": 50,
                "MAX_DURATION": "6m",
            },
        )
        run.notes["room_users"] = users

    def end(self, run):
        """After the room's wave: the queue off (mode off deletes the gate at the next tick), so that
        the late wave buys what is left without a token."""
        room = next(w for w in run.waves if w.name == "room")
        room.proc.wait(timeout=600)
        run.mark("room_wave_end")
        self.zone(run.coupon, {"mode": "off"})
        run.mark("queue_off", "zone mode off: the gate is deleted at the next tick")
        time.sleep(3)
        run.gate.stop.set()

    def snapshot(self, run, label):
        q, adm, sold_out = found = self.keys(run.coupon)
        run.notes.setdefault("snapshots", {})[label] = {
            "t": round(time.time() - run.t0, 1),
            "queued": len(q),
            "admitted": len(adm),
            "sold_out": sold_out,
        }
        return found

    # ---- room-kill-failover -----------------------------------------------------------------------

    def kill_and_failover(self, run):
        f = self.f
        # 700 users at 240 a minute (24 a 6 s step) for 400 units: the queue stays long over both faults
        self.start(run, users=700, budget=240, ramp="15s")
        run.at(25)
        before = self.snapshot(run, "before_kill")
        pid = f.pid_of("waiting-room")
        f.services("kill", "waiting-room")
        run.mark(
            "fault",
            f"SIGKILL the waiting room (pid {pid}) with {len(before[0])} users queued, "
            f"down {ROOM_DOWN_S} s before its restart",
        )
        time.sleep(ROOM_DOWN_S)
        f.services("up", "waiting-room")
        run.mark("restored", "waiting room ready again")
        # after the restarted room's first sweeps (sweep-every 30 s): a place purged is seen
        time.sleep(35)
        after = self.snapshot(run, "after_kill")
        run.notes["kill"] = places(before, after)
        key = f"wr:{{coupon-{run.coupon}}}:q"
        port = f.infra("redis-master-of", key)
        before = self.snapshot(run, "before_failover")
        rpid = f.pid_of(f"redis-{port}")
        f.infra("redis-kill", port)
        run.mark("redis_fault", f"SIGKILL the Redis master of the zone's keys, :{port} (pid {rpid})")
        f.infra("redis-wait-failover", port, "120")
        run.mark("failed_over", "every slot served by a live master")
        time.sleep(5)
        after = self.snapshot(run, "after_failover")
        run.notes["failover"] = places(before, after)
        f.infra("redis-start", port)
        run.mark("redis_restored", f"node :{port} back as a replica")
        self.end(run)

    def kill_checks(self, run, res):
        out = []
        for fault in ("kill", "failover"):
            p = run.notes.get(fault)
            out.append(
                (
                    f"no user lost their place ({fault})",
                    p is not None and p["queued_before"] > 0 and p["lost"] == 0 and p["moved_back"] == 0,
                    json.dumps(p),
                )
            )
        return out + self.journey_checks(run) + self.gate_checks(run)

    # ---- zone-flood -------------------------------------------------------------------------------

    def flood(self, run):
        f = self.f
        # 300 users at 300 a minute: the zone queues for about a minute, the flood within it
        self.start(run, users=300, budget=300, ramp="10s")
        run.at(8)
        before = f.scrape(self.mgmt)
        rng = random.Random(run.coupon)
        ids = [8_000_000_000_000_000_000 + rng.randrange(10**15) for _ in range(FLOOD_IDS)]
        token = self.f.tokens.token(f"{run.prefix}flooder", f.SETTINGS.secret, ttl=3600)
        run.mark("fault", f"flood: join and poll {len(ids)} unknown coupon ids, {FLOOD_THREADS} clients")
        started = time.time()
        answers = flood(self.port, token, ids)
        took = time.time() - started
        run.mark("restored", f"flood over: {sum(answers.values())} requests in {took:.1f} s")
        run.notes["flood"] = {"ids": len(ids), "answers": answers, "seconds": round(took, 1)}
        time.sleep(2)
        run.notes["flood"].update(leftovers(f, self.mgmt, ids, before, run.coupon))
        self.end(run)

    def flood_checks(self, run, res):
        fl = run.notes.get("flood", {})
        answers = fl.get("answers", {})
        # an unknown id is refused before any state is made: 404, or 503 while the API cannot answer
        refused = answers.get("404 COUPON_NOT_FOUND", 0) + answers.get("503 UNAVAILABLE", 0)
        total = sum(answers.values())
        fault, restored = run.mark_time("fault"), run.mark_time("restored")
        absent, late, n = run.gate.window(fault, restored) if fault and restored else (None, None, 0)
        return (
            self.gate_checks(run)
            + [
                (
                    "the flood was made and refused (404 COUPON_NOT_FOUND or 503)",
                    total >= FLOOD_IDS and refused == total,
                    f"{total} requests in {fl.get('seconds')} s: {answers}",
                ),
                (
                    f"the tick within budget under the flood (gate renewed within {GATE_RENEW_BUDGET_S} s)",
                    n > 0 and late is not None and late <= GATE_RENEW_BUDGET_S,
                    f"longest renewal gap {late} s in {n} samples of the gate's PTTL during the flood",
                ),
                (
                    "no Redis key for an unknown id",
                    fl.get("keys") == 0 and fl.get("own_keys", 0) > 0,
                    f"{fl.get('keys')} keys naming a flooded id ({fl.get('own_keys')} naming the real coupon)",
                ),
                (
                    "no meter for an unknown id",
                    fl.get("meters") == 0,
                    f"{fl.get('meters')} series naming a flooded id ({fl.get('own_series')} naming the real "
                    f"zone); room series {fl.get('series_before')} -> {fl.get('series_after')}",
                ),
            ]
            + self.journey_checks(run)
        )

    # ---- shared checks ----------------------------------------------------------------------------

    def gate_checks(self, run):
        sent = lambda r: (r[0] - r[1]) / 1000  # noqa: E731  answered at - duration
        # the queue is on from the gate's first sight to the zone's mode off, or to the sell-out (the
        # first 410: the room stops renewing a sold-out coupon's gate, nothing is left to skip to)
        sold_out = min((sent(r) for w in run.waves for r in self.f.read_requests(w.csv) if r[2] == 410), default=None)
        ends = [t for t in (run.mark_time("queue_off"), sold_out) if t]
        on, off = run.mark_time("gate_on"), min(ends, default=None)
        skippers = self.f.read_requests(run.waves[0].csv)
        inside = [r for r in skippers if on and off and on <= sent(r) < off]
        entered = sum(1 for r in inside if r[2] == 202)
        refused = sum(1 for r in inside if r[2] == 403)
        absent, late, n = run.gate.window(on, off) if on and off else (None, None, 0)
        run.notes["gate"] = {
            "window_s": round(off - on, 1) if on and off else None,
            "skipper_requests": len(inside),
            "skipper_202": entered,
            "skipper_403": refused,
            "gate_absent_s": absent,
            "longest_renewal_gap_s": late,
            "samples": n,
        }
        return [
            (
                "nobody entered without an entry token while the queue was on",
                on is not None and entered == 0 and refused > 0,
                f"{len(inside)} token-less requests sent while the queue was on: {entered} answered "
                f"202, {refused} 403 ENTRY_REQUIRED",
            ),
            (
                "the gate never lapsed while the queue was on",
                n > 0 and absent == 0,
                f"absent {absent} s in {n} samples; longest renewal gap {late} s "
                f"(TTL {run.gate.ttl_ms() / 1000:.0f} s)",
            ),
        ]

    def journey_checks(self, run):
        from verifier.waiting_room import RoomObserved, load_journeys

        room = next(w for w in run.waves if w.name == "room")
        journeys = load_journeys(room.log)
        ends = {}
        for j in journeys:
            ends[j.get("end")] = ends.get(j.get("end"), 0) + 1
        # a visit ends admitted and answered (accepted, duplicate, sold_out) or told SOLD_OUT
        unfinished = sum(n for e, n in ends.items() if e not in ("accepted", "duplicate", "sold_out", "SOLD_OUT"))
        inversions = RoomObserved(journeys, sub_window_ms=6000).inversions()
        run.notes["journeys"] = {"users": len(journeys), "ends": ends, "inversions": inversions}
        users = run.notes.get("room_users")
        return [
            (
                "every room user's visit ended (admitted, or told sold out)",
                len(journeys) == users and unfinished == 0,
                f"{len(journeys)} journeys of {users} users, ends {ends}",
            ),
            (
                "let in in arrival order",
                inversions == 0,
                f"{inversions} users let in a sub-window before an earlier one",
            ),
        ]


def places(before, after):
    """Whether each user queued before a fault kept their place after it: still queued at the same
    first arrival and no further back, or admitted, or (the coupon sold out) told so and gone. Counts
    and the users who did not."""
    (q0, a0, _), (q1, a1, sold_out) = before, after
    rank0 = {u: i for i, u in enumerate(sorted(q0, key=lambda u: (q0[u], u)))}
    rank1 = {u: i for i, u in enumerate(sorted(q1, key=lambda u: (q1[u], u)))}
    gone = [u for u in q0 if u not in q1 and u not in a1]
    lost = [] if sold_out else gone
    moved = [u for u in q0 if u in q1 and (q1[u] != q0[u] or rank1[u] > rank0[u])]
    return {
        "queued_before": len(q0),
        "admitted_before": len(a0),
        "queued_after": len(q1),
        "admitted_after": len(a1),
        "sold_out_after": sold_out,
        "gone": len(gone),
        "lost": len(lost),
        "moved_back": len(moved),
        "examples": (lost + moved)[:5],
    }


def flood(port, token, ids):
    """Each id joined, then polled, by FLOOD_THREADS clients on keep-alive connections; the answers
    by status and problem code."""
    answers, lock, queue = {}, threading.Lock(), list(ids)

    def client():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        while True:
            with lock:
                if not queue:
                    break
                cid = queue.pop()
            for method, path in (
                ("POST", f"/api/v1/waiting-room/coupons/{cid}/entries"),
                ("GET", f"/api/v1/waiting-room/coupons/{cid}/entries/me"),
            ):
                try:
                    conn.request(method, path, headers={"Authorization": f"Bearer {token}"})
                    res = conn.getresponse()
                    body = res.read()
                    try:
                        code = json.loads(body).get("code")
                    except ValueError:
                        code = None
                    key = f"{res.status} {code}"
                except (OSError, http.client.HTTPException) as e:
                    conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
                    key = f"error {type(e).__name__}"
                with lock:
                    answers[key] = answers.get(key, 0) + 1
        conn.close()

    threads = [threading.Thread(target=client, daemon=True) for _ in range(FLOOD_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def leftovers(f, mgmt, ids, before, coupon):
    """Redis keys (any node, any name) and room meter series naming a flooded id; the keys and
    series naming the real coupon show that both were read (None: the room's metrics unread)."""
    names = {str(i) for i in ids}
    flooded = lambda text: bool(names.intersection(re.findall(r"\d{16,}", text)))  # noqa: E731
    keys = own_keys = 0
    for port in f.REDIS_PORTS:  # masters and replicas: a key written anywhere is found
        res = subprocess.run(["redis-cli", "-p", str(port), "--scan"], capture_output=True, text=True, timeout=60)
        if res.returncode != 0 or res.stderr.strip():
            raise RuntimeError(f"redis-cli --scan on :{port}: {res.stderr.strip()[:200]}")
        out = res.stdout
        keys += sum(1 for k in out.split() if flooded(k))
        own_keys += sum(1 for k in out.split() if str(coupon) in k)
    after = {}
    for _ in range(5):  # the room may be slow to answer right after the flood
        after = f.scrape(mgmt)
        if after:
            break
        time.sleep(2)
    own = sum(1 for k in after if str(coupon) in k)
    meters = sum(1 for k in after if flooded(k)) if own else None
    return {
        "keys": keys,
        "own_keys": own_keys,
        "meters": meters,
        "own_series": own,
        "series_before": len(before),
        "series_after": len(after),
    }
