"""The waiting room's invariants and figures, from the journeys k6 printed (loadtests/waiting-room.js).

Pure apart from `load_journeys`: each journey is one user's visit (arrival, the join's answer,
polls, admission, the issuance). `RoomObserved` holds them with the rows of the coupon, and
`evaluate` runs the table `ROOM_INVARIANTS` (a table of its own, next to the issuance invariants).
Times are epoch milliseconds as k6 saw them, on the machine that also runs the room.
"""

import json
import math
from dataclasses import dataclass, field

from .invariants import Check, Invariant

MARK = "WR_JOURNEY "


def parse_journey(line):
    """The journey of one `WR_JOURNEY {json}` console line (plain, or logfmt-quoted by
    --console-output), else None."""
    at = line.find(MARK)
    if at < 0:
        return None
    text = line[at + len(MARK) :]
    if '\\"' in text:
        text = text.replace('\\"', '"')
    try:
        obj, _ = json.JSONDecoder().raw_decode(text)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) and "user" in obj else None


def load_journeys(path):
    with open(path, errors="replace") as f:
        return [j for j in (parse_journey(line) for line in f) if j is not None]


def percentile(values, p):
    """Nearest-rank percentile (p in 0..100); None for no values."""
    if not values:
        return None
    s = sorted(values)
    return s[max(0, math.ceil(p / 100 * len(s)) - 1)]


@dataclass(frozen=True)
class RoomObserved:
    journeys: list
    sub_window_ms: int
    issued_users: list = field(default_factory=list)  # user_id per row of the coupon
    eta_error_p90_max: float = 0.20  # the target: p90 of |actual - eta| / eta
    eta_reported: bool = False  # the benchmark reports the ETA error against its target, never fails on it
    eta_min_s: int = 5  # shorter estimates are dominated by whole-second rounding
    soldout_slack_ms: int = 2000  # the room learns sold-out from the API once a second

    @property
    def admitted(self):
        return [j for j in self.journeys if j.get("admittedAt") is not None]

    @property
    def queued(self):
        return [j for j in self.journeys if j.get("joinState") in ("QUEUED", "PAUSED")]

    def inversions(self):
        """Users admitted more than one sub-window before somebody who had joined (answer
        received) before they even sent their join: overtaken beyond the sub-window's slack."""
        adm = [j for j in self.admitted if j.get("joinedAt") is not None and j.get("sentAt") is not None]
        by_joined = sorted(adm, key=lambda j: j["joinedAt"])
        by_sent = sorted(adm, key=lambda j: j["sentAt"])
        count, latest, i = 0, None, 0
        for b in by_sent:
            while i < len(by_joined) and by_joined[i]["joinedAt"] < b["sentAt"]:
                a = by_joined[i]["admittedAt"]
                latest = a if latest is None else max(latest, a)
                i += 1
            if latest is not None and latest > b["admittedAt"] + self.sub_window_ms:
                count += 1
        return count

    def eta_errors(self):
        out = []
        for j in self.admitted:
            eta = j.get("etaS")
            if j.get("joinState") == "QUEUED" and eta is not None and eta >= self.eta_min_s:
                actual = j["admittedAt"] - j["joinedAt"]
                out.append(abs(actual - eta * 1000) / (eta * 1000))
        return out

    def sold_out_at(self):
        """When the stock ran out: the last accepted issuance, if any user learned of a sell-out."""
        if not any(j.get("state") == "SOLD_OUT" or j.get("issue") == "sold_out" for j in self.journeys):
            return None
        accepted = [j["issuedAt"] for j in self.journeys if j.get("issue") == "accepted" and j.get("issuedAt")]
        return (
            max(accepted)
            if accepted
            else min(
                j.get("soldOutAt") or j.get("issuedAt") or j["endedAt"]
                for j in self.journeys
                if j.get("state") == "SOLD_OUT" or j.get("issue") == "sold_out"
            )
        )

    def sold_out_delays(self):
        """(delays in ms of the users who were waiting at the sell-out, late users: those told
        later than their poll interval allows, users queued after it)."""
        at = self.sold_out_at()
        if at is None:
            return [], [], []
        delays, late, queued_after = [], [], []
        for j in self.journeys:
            if j.get("joinState") in ("QUEUED", "PAUSED") and j["joinedAt"] > at + self.soldout_slack_ms:
                queued_after.append(j["user"])
            waiting = j.get("joinedAt", 0) <= at and not (j.get("admittedAt") and j["admittedAt"] <= at)
            if not waiting or j.get("joinState") not in ("QUEUED", "PAUSED"):
                continue
            if j.get("state") != "SOLD_OUT":
                if not j.get("admittedAt"):
                    late.append(j["user"])  # never told
                continue
            d = max(0, j["soldOutAt"] - at)
            delays.append(d)
            if d > (j.get("lastPollAfterMs") or 0) + self.soldout_slack_ms:
                late.append(j["user"])
        return delays, late, queued_after

    def max_waiting(self):
        """The most users waiting at once (joined as queued, not yet admitted, told or gone)."""
        events = []
        for j in self.queued:
            end = j.get("admittedSeenAt") or j.get("soldOutAt") or j.get("endedAt") or j["joinedAt"]
            events.append((j["joinedAt"], 1))
            events.append((end, -1))
        most = now = 0
        for _, d in sorted(events):
            now += d
            most = max(most, now)
        return most

    def figures(self):
        delays, late, queued_after = self.sold_out_delays()
        errors = self.eta_errors()
        p90 = percentile(errors, 90)
        return {
            "journeys": len(self.journeys),
            "queued": len(self.queued),
            "admitted": len(self.admitted),
            "issued": sum(1 for j in self.journeys if j.get("issue") == "accepted"),
            "told_sold_out": sum(1 for j in self.journeys if j.get("state") == "SOLD_OUT"),
            "unanswered": sum(1 for j in self.journeys if j.get("end") in (None, "error", "QUEUED", "PAUSED")),
            "max_waiting_users": self.max_waiting(),
            "order_inversions": self.inversions(),
            "eta_samples": len(errors),
            "eta_error_p90_pct": round(p90 * 100, 1) if p90 is not None else None,
            "soldout_propagation_s": round(max(delays) / 1000, 3) if delays else None,
            "soldout_propagation_p95_s": round(percentile(delays, 95) / 1000, 3) if delays else None,
            "soldout_told_waiting_users": len(delays),
            "soldout_late_users": len(late),
            "queued_after_sold_out": len(queued_after),
        }


ROOM_INVARIANTS = []


def room_invariant(name, when=lambda r: True):
    def add(judge):
        ROOM_INVARIANTS.append(Invariant(name, when, judge))
        return judge

    return add


@room_invariant("waiting room: every user answered")
def _(r):
    f = r.figures()
    return f["unanswered"] == 0, (
        f"{f['journeys']} users: {f['queued']} queued, {f['admitted']} admitted, "
        f"{f['issued']} issued, {f['told_sold_out']} told sold out, "
        f"{f['unanswered']} without a final answer"
    )


@room_invariant("waiting room: admission follows arrival")
def _(r):
    n = r.inversions()
    return n == 0, f"{n} users admitted more than one sub-window ({r.sub_window_ms} ms) ahead of an earlier arrival"


@room_invariant("waiting room: one coupon per admitted user")
def _(r):
    admitted = {j["user"] for j in r.admitted}
    counts = {}
    for u in r.issued_users:
        counts[u] = counts.get(u, 0) + 1
    twice = sum(1 for n in counts.values() if n > 1)
    outsiders = sum(1 for u in counts if u not in admitted)
    return twice == 0 and outsiders == 0, (
        f"{len(counts)} holders, {twice} with more than one coupon, {outsiders} never admitted by the room"
    )


@room_invariant(
    "waiting room: sold-out reached every waiting user within one poll interval",
    when=lambda r: r.sold_out_at() is not None,
)
def _(r):
    delays, late, queued_after = r.sold_out_delays()
    worst = f"{max(delays) / 1000:.2f}s" if delays else "-"
    return not late and not queued_after, (
        f"{len(delays)} waiting users told, slowest {worst}; {len(late)} later "
        f"than their poll interval + {r.soldout_slack_ms} ms or never; "
        f"{len(queued_after)} queued after the sell-out"
    )


@room_invariant("waiting room: ETA error p90", when=lambda r: bool(r.eta_errors()))
def _(r):
    errors = r.eta_errors()
    p90 = percentile(errors, 90)
    met = p90 <= r.eta_error_p90_max
    detail = (
        f"p90 {p90 * 100:.1f}% over {len(errors)} users with an estimate of >= {r.eta_min_s}s "
        f"(target <= {r.eta_error_p90_max * 100:.0f}%)"
    )
    if r.eta_reported:
        return None, f"{detail}: {'met' if met else 'not met'}, reported, not judged"
    return met, detail


def evaluate(room):
    out = []
    for inv in ROOM_INVARIANTS:
        if inv.applies(room):
            ok, detail = inv.judge(room)
            out.append(Check(inv.name, None if ok is None else bool(ok), detail))
    return out
