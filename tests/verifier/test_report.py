import pytest

from verifier import report
from verifier.invariants import Check


def test_event_summary_marks_each_check():
    res = {"drain_seconds": 1.25, "rows": 3, "quantity": 3, "persist_rps": 6.0, "passed": False}
    checks = [
        Check("every 202 persisted", False, "2 rows for 3 accepted"),
        Check("one coupon per user", True, "3 distinct users"),
        Check("latency targets", None, "missed: issuance_duration: p(95)<1"),
    ]
    text = report.event_summary({"scenario": "spike", "accepted": 3, "confirmed": 3}, res, checks)
    # local/verify.sh's callers grep these lines (tests/loadtests/smoke.sh).
    assert "  FAIL  every 202 persisted" in text
    assert "  PASS  one coupon per user" in text
    assert "  INFO  latency targets" in text and "missed: issuance_duration: p(95)<1" in text
    assert "lag drained in 1.2s after k6 ended" in text
    assert "202 -> ISSUED seen by the user" in text
    assert text.rstrip().endswith("==> FAILED")


def test_event_summary_without_k6_and_not_drained():
    res = {"drain_seconds": -1, "rows": 0, "quantity": None, "persist_rps": 0.0, "passed": True}
    text = report.event_summary({}, res, [])
    assert "scenario" not in text and "NOT within the timeout" in text and "ALL INVARIANTS PASS" in text


def phase(accepted_rps=4000.0, p95=250, drain=5.0, passed=True, **extra):
    k6 = {
        "vus_peak": 10000,
        "requests": 12000,
        "accepted": 11000,
        "accepted_rps": accepted_rps,
        "p50_ms": 90,
        "p95_ms": p95,
        "p99_ms": 400,
        "max_ms": 900,
        "unexpected": 0,
        "shed": 2,
        "request_rps": 5000,
        **extra,
    }
    v = {
        "persist_rps": 3500.0,
        "drain_seconds": drain,
        "rows": 11000,
        "over_issue": 0,
        "duplicates": 0,
        "lost_acceptances": 0,
        "passed": passed,
    }
    return {"k6": k6, "verification": v}


def test_bench_summary_meets_every_goal():
    out = report.bench_summary(phase(), phase(), cores=2)
    assert {k: v for k, v in out.items() if k.startswith("meets_")} == {
        "meets_vus_peak": 1,
        "meets_accepted_rps": 1,
        "meets_p95_ms": 1,
        "meets_drain_seconds": 1,
        "meets_correct": 1,
    }
    assert out["invariants_passed"] == 1 and out["cores"] == 2


@pytest.mark.parametrize(
    "main, soldout, missed",
    [
        (phase(accepted_rps=800.0), phase(), "meets_accepted_rps"),
        (phase(p95=300), phase(), "meets_p95_ms"),
        (phase(drain=-1), phase(), "meets_drain_seconds"),
        (phase(drain=10.5), phase(), "meets_drain_seconds"),
        (phase(), phase(passed=False), "meets_correct"),
    ],
)
def test_bench_summary_misses_a_goal(main, soldout, missed):
    out = report.bench_summary(main, soldout)
    assert [k for k, v in out.items() if k.startswith("meets_") and not v] == [missed]


def test_bench_summary_adds_the_sustained_phase_cpu_and_gauge():
    sustained = phase(passed=False, phases=[{"target_rps": 800}], dropped_iterations=4)
    sustained["verification"]["duplicates"] = 1
    cpu = {"percent_of_machine": {"coupon-api": 41.5, "k6": 30.0}}
    out = report.bench_summary(
        phase(), phase(), sustained=sustained, cpu=cpu, gauge={"gauge_s": 0.4, "wakeup_us": 20.1}
    )
    assert out["sustained_target_rps"] == 800 and out["sustained_dropped"] == 4
    assert out["duplicates"] == 1 and out["invariants_passed"] == 0 and out["meets_correct"] == 0
    assert out["cpu_pct_coupon_api"] == 41.5 and out["cpu_pct_k6"] == 30.0
    assert out["machine_gauge_s"] == 0.4 and out["machine_wakeup_us"] == 20.1
    md = report.bench_markdown(out, cpu)
    assert "Sustained rate: 800/s offered" in md and "Host gauge before the run" in md
    assert md.rstrip().endswith("coupon-api 42%, k6 30%.")


def test_bench_markdown_marks_the_measured_row():
    out = report.bench_summary(phase(p95=2500), phase())
    measured = next(line for line in report.bench_markdown(out).splitlines() if line.startswith("| **measured**"))
    assert measured == "| **measured** | 10,000 ✅ | 4,000 ✅ | 2,500 ms ❌ | 400 ms | 5.0 s ✅ | 0 / 0 / 0 ✅ |"
    assert "Sustained rate" not in report.bench_markdown(out)
