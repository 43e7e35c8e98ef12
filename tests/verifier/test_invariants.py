import dataclasses

import pytest

from verifier.invariants import INVARIANTS, Observed, evaluate, is_latency, parse_outcomes, verification

K6 = {
    "scenario": "spike",
    "coupon_id": "7",
    "requests": 6,
    "accepted": 3,
    "duplicate": 1,
    "sold_out": 2,
    "not_open": 0,
    "shed": 0,
    "timed_out": 0,
    "unexpected": 0,
    "gave_up": 0,
    "requesters": 5,
    "confirmed": 3,
    "unconfirmed": 0,
    "second_accept": 0,
    "users": 5,
    "user_offset": 0,
    "user_prefix": "user-",
    "p95_ms": 12,
    "thresholds": {"issuance_duration: p(95)<500": True, "unexpected: rate<=0": True},
}
REC = {"consistent": True, "pending": 0, "redisIssued": 3, "mysqlRows": 3, "remaining": 0}


def good(**changes):
    """A sold-out run of quantity 3 where everything holds; `changes` break one thing."""
    o = Observed(
        coupon=7,
        quantity=3,
        rows=3,
        issued=[("user-0", 1), ("user-1", 2), ("user-2", 3)],
        k6=dict(K6),
        drain_seconds=0.5,
        persist_span_s=0.2,
        reconciliation=dict(REC),
        lag=0,
    )
    return dataclasses.replace(o, **changes)


def k6_with(**changes):
    return {**K6, **changes}


def by_name(checks):
    return {c.name: c for c in checks}


def failed(o):
    return sorted(c.name for c in evaluate(o) if c.ok is False)


def test_a_clean_run_passes_every_invariant():
    checks = evaluate(good())
    assert [c.name for c in checks] == [i.name for i in INVARIANTS if i.name != "latency targets"]
    assert all(c.ok for c in checks)
    assert verification(good(), checks)["passed"] is True


@pytest.mark.parametrize(
    "broken, expected",
    [
        (
            dict(
                rows=4,
                issued=[("user-0", 1), ("user-1", 2), ("user-2", 3), ("user-3", 4)],
                reconciliation={**REC, "redisIssued": 4, "mysqlRows": 4},
            ),
            ["never over-issued", "no row without a 202", "no stranded stock", "slots within 1..quantity"],
        ),
        (
            dict(
                rows=2, issued=[("user-0", 1), ("user-1", 2)], reconciliation={**REC, "redisIssued": 2, "mysqlRows": 2}
            ),
            ["every 202 persisted", "no stranded stock"],
        ),
        (dict(issued=[("user-0", 1), ("user-0", 2), ("user-2", 3)]), ["one coupon per user"]),
        (dict(issued=[("user-0", 1), ("user-1", 1), ("user-2", 3)]), ["one coupon per user"]),
        (dict(issued=[("user-0", 1), ("user-1", 2), ("someone", 3)]), ["no row without a 202"]),
        (dict(issued=[("user-0", 1), ("user-1", 2), ("user-9", 3)]), ["no row without a 202"]),
        (dict(reconciliation=None), ["Redis view = MySQL"]),
        (dict(reconciliation={**REC, "pending": 1}), ["Redis view = MySQL"]),
        (dict(reconciliation={**REC, "redisIssued": 4}), ["Redis view = MySQL"]),
        (dict(lag=5), ["consumer lag 0"]),
        (dict(k6=k6_with(requests=5)), ["k6 counted every answer"]),
        (dict(k6=k6_with(unexpected=1)), ["no unexpected answers"]),
        (dict(k6=k6_with(gave_up=1)), ["no unexpected answers"]),
        (dict(k6=k6_with(unconfirmed=1)), ["every 202 seen ISSUED by its user"]),
        (dict(k6=k6_with(second_accept=1)), ["a second click never issues"]),
        (dict(k6=k6_with(thresholds={"issuance_duration: p(95)<500": False})), ["k6 thresholds"]),
    ],
)
def test_each_broken_invariant_fails(broken, expected):
    o = good(**broken)
    assert failed(o) == sorted(expected)
    assert verification(o, evaluate(o))["passed"] is False


def test_fewer_rows_than_stock_allows_requesters_only():
    # 2 requesters for 3 coupons: 2 rows expected, a third row has no 202 behind it.
    o = good(k6=k6_with(requesters=2, accepted=2, sold_out=0, requests=3))
    assert failed(o) == ["no row without a 202", "no stranded stock"]


def test_ambiguous_answers_allow_as_many_extra_rows():
    # Two 503s and a time-out after which the server may still have issued: up to 3 extra rows.
    k6 = k6_with(accepted=0, sold_out=2, shed=2, timed_out=1, requests=6, requesters=2)
    assert failed(good(k6=k6)) == []
    assert "up to 3 with the 3 answered 503 or timed out" in by_name(evaluate(good(k6=k6)))["no stranded stock"].detail


def test_without_quantity_the_stock_checks_are_skipped():
    names = [c.name for c in evaluate(good(quantity=None))]
    assert not {"never over-issued", "no stranded stock", "slots within 1..quantity"} & set(names)


def test_without_k6_summary_only_the_store_checks_run():
    o = good(k6={}, rows=0, issued=[], reconciliation={**REC, "redisIssued": 0, "mysqlRows": 0})
    assert [c.name for c in evaluate(o)] == [
        "never over-issued",
        "no stranded stock",
        "slots within 1..quantity",
        "one coupon per user",
        "every 202 persisted",
        "no row without a 202",
        "Redis view = MySQL",
        "consumer lag 0",
    ]


def test_lag_unknown_is_not_judged():
    assert "consumer lag 0" not in by_name(evaluate(good(lag=None)))


def test_ignore_thresholds():
    o = good(k6=k6_with(thresholds={"unexpected: rate<=0": False}), judge_thresholds=False)
    assert "k6 thresholds" not in by_name(evaluate(o))


def test_latency_reported_reports_a_missed_target_and_still_judges_failures():
    slow = {"issuance_duration: p(95)<1": False, "time_to_issued: p(95)<10": True, "unexpected: rate<=0": True}
    o = good(k6=k6_with(thresholds=slow), latency_reported=True)
    checks = by_name(evaluate(o))
    assert checks["k6 thresholds"].ok is True
    assert checks["latency targets"].ok is None
    assert "missed: issuance_duration: p(95)<1" in checks["latency targets"].detail
    res = verification(o, evaluate(o))
    assert res["passed"] is True and "latency targets" not in res["checks"]
    assert res["latency_targets"] == {"issuance_duration: p(95)<1": False, "time_to_issued: p(95)<10": True}

    gave_up = good(
        k6=k6_with(thresholds={**slow, "issuance_gave_up: count==0": False}, gave_up=1), latency_reported=True
    )
    assert failed(gave_up) == ["k6 thresholds", "no unexpected answers"]
    assert "issuance_gave_up" in by_name(evaluate(gave_up))["k6 thresholds"].detail


@pytest.mark.parametrize(
    "threshold, latency",
    [
        ("issuance_duration: p(95)<500", True),
        ("http_req_duration{scenario:spike}: p(99)<9", True),
        ("time_to_issued: p(95)<10", True),
        ("issuance_gave_up: count==0", False),
        ("unexpected: rate<=0", False),
    ],
)
def test_is_latency(threshold, latency):
    assert is_latency(threshold) is latency


def test_verification_figures():
    o = good(rows=3, persist_span_s=0.5, drain_seconds=None, lag=None)
    res = verification(o, evaluate(o))
    assert res["persist_rps"] == 6.0 and res["drain_seconds"] == -1 and res["kafka_lag"] == -1
    assert res["over_issue"] == 0 and res["coupon_id"] == 7
    assert res["checks"]["every 202 persisted"] is True


# A lost 202 hidden by a 503 that landed: quantity 4; user-0, user-1 and user-2 got 202; user-3 got a
# 503 whose reservation landed anyway (its retry answered 409); user-4 got 410; user-1's record was
# lost, its slot released as stale and sold to user-5 (202). 4 rows for 4 202s: the counts agree, the
# users do not.
HIDDEN_K6 = {
    **K6,
    "requests": 7,
    "accepted": 4,
    "duplicate": 1,
    "sold_out": 1,
    "shed": 1,
    "requesters": 6,
    "confirmed": 0,
    "unconfirmed": 0,
    "users": 6,
}
HIDDEN_LOG = [
    'time="2026-11-28T15:00:00Z" level=info msg="ISSUE_OUTCOME user-0 accepted" source=console',
    'time="2026-11-28T15:00:00Z" level=info msg="ISSUE_OUTCOME user-1 accepted" source=console',
    'time="2026-11-28T15:00:00Z" level=info msg="ISSUE_OUTCOME user-2 accepted" source=console',
    'time="2026-11-28T15:00:00Z" level=info msg="ISSUE_OUTCOME user-3 shed" source=console',
    "some other k6 line",
    'time="2026-11-28T15:00:09Z" level=info msg="ISSUE_OUTCOME user-5 accepted" source=console',
]


def hidden(**changes):
    o = good(
        quantity=4,
        rows=4,
        issued=[("user-0", 1), ("user-5", 2), ("user-2", 3), ("user-3", 4)],
        k6=dict(HIDDEN_K6),
        reconciliation={**REC, "redisIssued": 4, "mysqlRows": 4},
        outcomes=parse_outcomes(HIDDEN_LOG),
    )
    return dataclasses.replace(o, **changes)


def test_a_lost_202_is_not_hidden_by_a_503_that_landed():
    o = hidden()
    assert failed(o) == ["every 202 persisted"]
    assert "user-1" in by_name(evaluate(o))["every 202 persisted"].detail
    assert verification(o, evaluate(o))["lost_acceptances"] == 1
    assert verification(o, evaluate(o))["lost_202_users"] == ["user-1"]
    # Counted, the same run passed: 4 rows for 4 202s.
    assert failed(hidden(outcomes=None)) == []


def test_every_202_persisted_per_user():
    rows = [("user-0", 1), ("user-1", 2), ("user-2", 3), ("user-3", 4), ("user-5", 5)]
    o = hidden(quantity=5, rows=5, issued=rows, reconciliation={**REC, "redisIssued": 5, "mysqlRows": 5})
    assert failed(o) == []
    assert verification(o, evaluate(o))["lost_acceptances"] == 0


def test_a_row_needs_a_202_or_an_ambiguous_answer_of_its_user():
    # user-4 (answered 410) holds a row, user-3 (a 503 that landed) does not: one row without a 202,
    # though the 503 would allow one extra row by count.
    rows = [("user-0", 1), ("user-1", 2), ("user-2", 3), ("user-4", 4), ("user-5", 5)]
    o = hidden(quantity=5, rows=5, issued=rows, reconciliation={**REC, "redisIssued": 5, "mysqlRows": 5})
    assert failed(o) == ["no row without a 202"]
    assert "user-4" in by_name(evaluate(o))["no row without a 202"].detail


def test_an_incomplete_outcome_log_fails_rather_than_judging_fewer_users():
    # k6 counted 4 202s, the log names 3: a user missing from the log could be the lost one.
    o = hidden(outcomes=parse_outcomes(HIDDEN_LOG[:3] + HIDDEN_LOG[4:5]))
    checks = by_name(evaluate(o))
    assert checks["every 202 persisted"].ok is False
    assert "3 of the 4 202s" in checks["every 202 persisted"].detail


def test_parse_outcomes():
    out = parse_outcomes(HIDDEN_LOG + ['msg="ISSUE_OUTCOME user-1 accepted"', 'msg="ISSUE_OUTCOME user-7 timed_out"'])
    assert out.accepted == {"user-0", "user-1", "user-2", "user-5"}
    assert out.ambiguous == {"user-3", "user-7"}
    assert out.accepted_answers == 5
