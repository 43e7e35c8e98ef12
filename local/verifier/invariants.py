"""The invariants of a coupon event, as a table of checks over what one run observed.

Pure: `Observed` holds what the harness answered (rows, reconciliation, lag) and the k6 summary;
`evaluate` runs every applicable row of `INVARIANTS` and returns the checks in table order.
A check's `ok` is True/False, or None for a line that is reported but not judged.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

OUTCOME_LINE = re.compile(r"ISSUE_OUTCOME (\S+) (accepted|shed|timed_out)\b")


@dataclass(frozen=True)
class Outcomes:
    """Who got which answer, from the `ISSUE_OUTCOME <user> <outcome>` lines k6 prints with LOG_OUTCOMES=1
    (loadtests/lib/api.js): one line per 202, 503 and request without an answer."""

    accepted: frozenset = frozenset()  # users answered 202
    ambiguous: frozenset = frozenset()  # users answered 503, or not at all, at least once: may hold a coupon
    accepted_answers: int = 0  # 202 lines: the log is complete when it equals k6's count of 202s


def parse_outcomes(lines):
    """The Outcomes of k6 console output (any other line is skipped)."""
    accepted, ambiguous, answers = set(), set(), 0
    for line in lines:
        m = OUTCOME_LINE.search(line)
        if m is None:
            continue
        if m[2] == "accepted":
            accepted.add(m[1])
            answers += 1
        else:
            ambiguous.add(m[1])
    return Outcomes(frozenset(accepted), frozenset(ambiguous), answers)


@dataclass(frozen=True)
class Observed:
    coupon: int
    quantity: int | None
    rows: int
    issued: list  # (user_id, slot) per row
    k6: dict = field(default_factory=dict)  # the k6 JSON summary ({} without one)
    drain_seconds: float | None = None  # time to reach the accepted count; None: never reached
    persist_span_s: float = 0.0
    reconciliation: dict | None = None  # the admin endpoint's answer; None: no answer
    lag: int | None = None  # the consumer group's lag; None: not checked
    group: str = "coupon-consumer"
    judge_thresholds: bool = True  # False: --ignore-thresholds
    latency_reported: bool = False  # latency thresholds reported, not judged
    outcomes: Outcomes | None = None  # per user answers; None: judged by counts only

    def k(self, key, default=0):
        return int(self.k6.get(key, default) or 0)

    @property
    def accepted(self):
        return self.k("accepted")

    @property
    def requesters(self):
        return self.k("requesters")

    @property
    def ambiguous(self):
        """Answers after which the user may hold a coupon after all: a 503 after a reservation (the
        send timed out but a leader appended it) and a request the client gave up on (the server
        went on and may have sent it). docs/decisions/0015-ambiguous-answers-in-verification.md"""
        return self.k("shed") + self.k("timed_out")

    @property
    def slots(self):
        return [s for _, s in self.issued]

    @property
    def distinct_users(self):
        return len({u for u, _ in self.issued})

    @property
    def duplicates(self):
        return len(self.issued) - self.distinct_users

    @property
    def duplicate_slots(self):
        return len(self.slots) - len(set(self.slots))

    @property
    def users_in_db(self):
        return {u for u, _ in self.issued}

    @property
    def lost_users(self):
        """Users answered 202 without a row (None without per-user outcomes)."""
        return None if self.outcomes is None else sorted(self.outcomes.accepted - self.users_in_db)

    @property
    def lost_acceptances(self):
        """202s without a row: per user when the outcomes are known (one user's lost 202 is not hidden
        by another's 503 that landed), else by count."""
        if self.outcomes is not None:
            return len(self.lost_users)
        return max(0, self.accepted - self.rows)

    @property
    def users_without_202(self):
        """Users holding a row who were answered neither 202 nor an ambiguous 503 / no answer (None
        without per-user outcomes)."""
        if self.outcomes is None:
            return None
        return sorted(self.users_in_db - self.outcomes.accepted - self.outcomes.ambiguous)

    @property
    def rows_without_202(self):
        return max(0, self.rows - self.accepted)

    @property
    def outcomes_complete(self):
        """The outcome log names every 202 k6 counted (a missing line could be the lost one)."""
        return self.outcomes is None or self.outcomes.accepted_answers >= self.accepted

    @property
    def strangers(self):
        """Rows of users outside this run (USER_PREFIX + USER_OFFSET .. + USERS)."""
        prefix = self.k6.get("user_prefix", "user-")
        offset, users = self.k("user_offset"), self.k("users")

        def in_run(u):
            if not u.startswith(prefix) or not u[len(prefix) :].isdigit():
                return False
            i = int(u[len(prefix) :]) - offset
            return i >= 0 and (users == 0 or i < users)

        return sum(1 for u, _ in self.issued if not in_run(u))

    @property
    def expected_rows(self):
        return min(self.quantity, self.requesters)

    @property
    def most_rows(self):
        return min(self.quantity, self.requesters + self.ambiguous)

    def thresholds(self):
        """(failed thresholds judged, latency thresholds reported: expression -> passed)."""
        thresholds = self.k6.get("thresholds", {})
        latency = {k: ok for k, ok in thresholds.items() if self.latency_reported and is_latency(k)}
        failed = [k for k, ok in thresholds.items() if not ok and k not in latency]
        return failed, latency


def is_latency(threshold):
    """A k6 threshold on a duration (issuance_duration, http_req_duration, time_to_issued)."""
    metric = threshold.split(":")[0].split("{")[0]
    return metric.endswith("duration") or metric == "time_to_issued"


class Invariant(NamedTuple):
    name: str
    applies: Callable[[Observed], bool]
    judge: Callable[[Observed], tuple]  # -> (ok: bool | None, detail: str)


class Check(NamedTuple):
    name: str
    ok: bool | None
    detail: str


INVARIANTS = []


def invariant(name, when=lambda o: True):
    def add(judge):
        INVARIANTS.append(Invariant(name, when, judge))
        return judge

    return add


def _quantity(o):
    return o.quantity is not None


def _k6(o):
    return bool(o.k6)


def _thresholds(o):
    return bool(o.k6) and o.judge_thresholds


@invariant("never over-issued", when=_quantity)
def _(o):
    return o.rows <= o.quantity, f"{o.rows} rows <= quantity {o.quantity}"


@invariant("no stranded stock", when=_quantity)
def _(o):
    # Rows beyond the requesters are allowed up to the number of ambiguous answers, and no further.
    detail = f"{o.rows} rows, expected min(quantity {o.quantity}, requesters {o.requesters}) = {o.expected_rows}" + (
        f" (up to {o.most_rows} with the {o.ambiguous} answered 503 or timed out)"
        if o.most_rows > o.expected_rows
        else ""
    )
    return o.expected_rows <= o.rows <= o.most_rows, detail


@invariant("slots within 1..quantity", when=_quantity)
def _(o):
    return all(1 <= s <= o.quantity for s in o.slots), f"{len(set(o.slots))} distinct slots"


@invariant("one coupon per user")
def _(o):
    return (
        o.duplicates == 0 and o.duplicate_slots == 0,
        f"{o.distinct_users} distinct users in {len(o.issued)} rows, {o.duplicate_slots} shared slots",
    )


def _some(users, n=5):
    return ", ".join(users[:n]) + (f" and {len(users) - n} more" if len(users) > n else "")


@invariant("every 202 persisted")
def _(o):
    drained = f", drained in {o.drain_seconds:.1f}s" if o.drain_seconds is not None else ", NOT drained"
    if o.outcomes is None:
        return o.lost_acceptances == 0, f"{o.rows} rows for {o.accepted} accepted{drained}"
    if not o.outcomes_complete:
        return False, (
            f"the outcome log names {o.outcomes.accepted_answers} of the {o.accepted} 202s k6 counted: "
            f"cannot judge per user{drained}"
        )
    lost = o.lost_users
    return not lost, (
        f"{len(o.outcomes.accepted)} users answered 202, {len(lost)} of them without a row"
        + (f" ({_some(lost)})" if lost else "")
        + f"; {o.rows} rows{drained}"
    )


@invariant("no row without a 202")
def _(o):
    if o.outcomes is not None:
        extra = o.users_without_202
        return (
            not extra and o.strangers == 0,
            f"{len(extra)} users hold a row without a 202 or an ambiguous answer"
            + (f" ({_some(extra)})" if extra else "")
            + f", {o.strangers} from users outside this run",
        )
    return (
        o.rows_without_202 <= o.ambiguous and o.strangers == 0,
        f"{o.rows_without_202} extra rows (allowed up to {o.ambiguous} answered 503 or timed out, "
        f"each possibly landed), {o.strangers} from users outside this run",
    )


@invariant("Redis view = MySQL")
def _(o):
    rec = o.reconciliation
    if rec is None:
        return False, "reconciliation endpoint gave no answer"
    ok = rec.get("consistent") and rec.get("pending") == 0 and rec.get("redisIssued") == rec.get("mysqlRows") == o.rows
    return ok, (
        f"redisIssued {rec.get('redisIssued')}, mysqlRows {rec.get('mysqlRows')}, "
        f"pending {rec.get('pending')}, remaining {rec.get('remaining')}, consistent {rec.get('consistent')}"
    )


@invariant("consumer lag 0", when=lambda o: o.lag is not None)
def _(o):
    return o.lag == 0, f"group {o.group} lag {o.lag}"


@invariant("k6 counted every answer", when=_k6)
def _(o):
    answered = sum(o.k(k) for k in ("accepted", "duplicate", "sold_out", "not_open", "shed"))
    return o.k("requests") >= answered, f"{o.k6.get('requests')} issuance requests, {answered} answers by outcome"


@invariant("no unexpected answers", when=_k6)
def _(o):
    return (
        o.k6.get("unexpected", 1) == 0 and o.k("gave_up") == 0,
        f"{o.k6.get('unexpected')} unexpected, {o.k('gave_up')} gave up after 503s",
    )


@invariant("every 202 seen ISSUED by its user", when=lambda o: bool(o.k("confirmed") or o.k("unconfirmed")))
def _(o):
    return o.k("unconfirmed") == 0, f"{o.k6.get('confirmed')} confirmed, {o.k('unconfirmed')} not within the deadline"


@invariant("a second click never issues", when=lambda o: "second_accept" in o.k6)
def _(o):
    return o.k6["second_accept"] == 0, f"{o.k6.get('duplicate')} answered 409"


@invariant("k6 thresholds", when=_thresholds)
def _(o):
    failed, latency = o.thresholds()
    return not failed, (
        ("all passed" if not failed else "failed: " + "; ".join(failed))
        + (" (latency reported below, not judged)" if latency else "")
    )


@invariant("latency targets", when=lambda o: _thresholds(o) and o.latency_reported)
def _(o):
    missed = [k for k, ok in o.thresholds()[1].items() if not ok]
    return None, (
        ("all met" if not missed else "missed: " + "; ".join(missed))
        + f" (p95 {o.k6.get('p95_ms')} ms); reported, not judged"
    )


def evaluate(observed):
    """Every applicable invariant, in table order."""
    out = []
    for inv in INVARIANTS:
        if inv.applies(observed):
            ok, detail = inv.judge(observed)
            out.append(Check(inv.name, None if ok is None else bool(ok), detail))
    return out


def verification(o, checks):
    """The `verification` object of the verifier's JSON output."""
    rows = o.rows
    res = {
        "coupon_id": o.coupon,
        "quantity": o.quantity,
        "rows": rows,
        "over_issue": max(0, rows - o.quantity) if o.quantity is not None else 0,
        "duplicates": o.duplicates,
        "duplicate_slots": o.duplicate_slots,
        "lost_acceptances": o.lost_acceptances,
        "lost_202_users": o.lost_users,  # None: judged by counts (no outcome log)
        "rows_without_202": o.rows_without_202,
        "strangers": o.strangers,
        "drain_seconds": round(o.drain_seconds, 3) if o.drain_seconds is not None else -1,
        "persist_rps": round(rows / o.persist_span_s, 1) if o.persist_span_s > 0 else float(rows),
        "persist_span_s": round(o.persist_span_s, 3),
        "kafka_lag": o.lag if o.lag is not None else -1,
        "reconciliation": o.reconciliation,
    }
    if _thresholds(o) and o.latency_reported:
        res["latency_targets"] = o.thresholds()[1]
    judged = [c for c in checks if c.ok is not None]
    res["checks"] = {c.name: c.ok for c in judged}
    res["passed"] = all(c.ok for c in judged)
    return res
