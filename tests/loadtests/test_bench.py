"""The pure logic of make bench (local/bench/): the ladder's search, the summary's correctness and
targets, the waiting room's cost per step from the marks of its capacity run, the JFR share's
buckets. The measuring itself runs against the harness (make bench)."""

import argparse

import pytest

import jfr_share
import ladder
import summary


class FakeLadder(ladder.Ladder):
    """A ladder whose steps pass up to a true capacity, without a harness."""

    def __init__(self, capacity, **options):
        defaults = dict(
            start=300,
            growth=1.5,
            resolution=0.05,
            step_seconds=25,
            warmup_rate=300,
            warmup_seconds=20,
            max_steps=20,
            fixed=None,
        )
        self.a = argparse.Namespace(**{**defaults, **options})
        self.capacity = capacity
        self.steps = []

    def step(self, rate, seconds, label):
        passed = label == "warmup" or rate <= self.capacity
        self.steps.append({"label": label, "rate": rate, "passed": passed})
        return passed


@pytest.mark.parametrize("capacity", [290, 600, 650, 1000, 1720])
def test_the_ladder_finds_capacity_within_its_resolution(capacity):
    lad = FakeLadder(capacity)
    found = lad.search()
    assert found <= capacity
    assert (capacity - found) / capacity <= 0.05 + 1e-9
    assert lad.steps[0]["label"] == "warmup"
    # grows by 1.5 until the first fail, then bisects: a handful of steps, not a sweep
    assert len(lad.steps) <= 12


def test_the_ladder_shrinks_when_the_first_step_fails():
    lad = FakeLadder(120)
    found = lad.search()
    assert found is not None and 120 * 0.95 <= found <= 120
    assert any(s["label"] == "shrink" for s in lad.steps)


def test_fixed_rates_run_exactly_those_steps():
    lad = FakeLadder(10, fixed=[500, 500], warmup_seconds=0)
    assert lad.search() is None
    assert [s["rate"] for s in lad.steps] == [500, 500]


def test_harness_process_names_map_to_components():
    assert [ladder.role(n) for n in ("api", "consumer", "consumer-2", "kafka-1", "redis-7501", "mariadb")] == [
        "api",
        "consumer",
        "consumer",
        "kafka",
        "redis",
        "mariadb",
    ]


def step(**kw):
    s = {
        "label": "grow",
        "rate": 300,
        "achieved_rps": 300,
        "p95_ms": 100,
        "p99_ms": 150,
        "passed": True,
        "invariants_passed": 1,
        "over_issue": 0,
        "duplicates": 0,
        "lost_acceptances": 0,
        **{k: 500 for k in summary.CPU},
        "cores_used": 1.5,
    }
    return {**s, **kw}


def test_summary_reports_targets_without_judging_them():
    lad = {"capacity_rps": 2400, "steps": [step()], **{k: 500 for k in summary.CPU}}
    lad["server_cpu_us_per_accepted"] = 300
    out = summary.summarize(lad, None, None, None)
    assert out["capacity_rps"] == 2400 and out["meets_capacity_rps"] == 1
    assert out["meets_server_cpu_us_per_accepted"] == 1 and out["meets_api_cpu_us_per_accepted"] == 0
    lad.update(capacity_rps=2300, server_cpu_us_per_accepted=301)
    out = summary.summarize(lad, None, None, None)
    assert out["meets_capacity_rps"] == 0 and out["meets_server_cpu_us_per_accepted"] == 0
    assert out["correct"] == 1


@pytest.mark.parametrize(
    "bad", [{"over_issue": 1}, {"lost_acceptances": 2}, {"invariants_passed": 0}, {"duplicates": -1}]
)
def test_summary_fails_on_any_correctness_figure_of_a_step(bad):
    lad = {"capacity_rps": 300, "steps": [step(), step(**bad)]}
    assert summary.summarize(lad, None, None, None)["correct"] == 0


def test_summary_fails_on_a_spike_that_lost_an_acceptance():
    spike = {
        "k6": {
            "requests": 10,
            "accepted": 10,
            "p50_ms": 1,
            "p95_ms": 2,
            "p99_ms": 3,
            "shed": 0,
            "gave_up": 0,
            "unexpected": 0,
            "vus_peak": 10,
            "all_answered_s": 1.5,
        },
        "verification": {
            "passed": False,
            "over_issue": 0,
            "duplicates": 0,
            "lost_acceptances": 1,
            "drain_seconds": 0.1,
            "persist_rps": 10,
        },
    }
    out = summary.summarize({"capacity_rps": 300, "steps": [step()]}, spike, None, None)
    assert out["spike_all_answered_s"] == 1.5
    assert out["lost_acceptances"] == 1 and out["correct"] == 0


def wr_spike(passed=True, inversions=0, eta=12.5):
    return {
        "k6": {"users": 3000, "wr_join_p95_ms": 40.0, "wr_poll_p95_ms": 61.0, "wr_answer_p95_ms": 45.0},
        "verification": {
            "passed": passed,
            "over_issue": 0,
            "duplicates": 0,
            "lost_acceptances": 0,
            "waiting_room": {
                "queued": 1800,
                "admitted": 2000,
                "order_inversions": inversions,
                "eta_error_p90_pct": eta,
                "eta_samples": 600,
                "soldout_propagation_s": 9.5,
            },
        },
    }


def test_waiting_room_figures_are_reported_against_their_targets():
    capacity = {
        "wr_max_waiting_users": 100000,
        "wr_capacity_steps": [
            {"waiting": 100000, "polls": 90000, "poll_p95_ms": 4.0, "poll_p99_ms": 9.0, "join_p95_ms": 30.0},
            {"waiting": 130000, "polls": 0, "poll_p95_ms": 0, "poll_p99_ms": 0, "join_p95_ms": 0},
        ],
    }
    out = summary.summarize({"capacity_rps": 300, "steps": [step()]}, None, None, None, wr_spike(), capacity)
    assert (out["wr_join_p95_ms"], out["wr_poll_p95_ms"], out["wr_max_waiting_users"]) == (40.0, 61.0, 100000)
    assert (out["wr_order_inversions"], out["wr_eta_error_p90_pct"], out["wr_soldout_propagation_s"]) == (0, 12.5, 9.5)
    assert out["meets_wr_join_p95_ms"] == 1 and out["meets_wr_poll_p95_ms"] == 0
    assert out["meets_wr_max_waiting_users"] == 1 and out["meets_wr_eta_error_p90_pct"] == 1
    assert out["correct"] == 1
    md = summary.markdown(out, None)
    assert "`wr_poll_p95_ms` | <= 50 | 61.0 (not met)" in md and "FAIL" not in md


def test_waiting_room_targets_are_absent_when_its_phase_did_not_run():
    out = summary.summarize({"capacity_rps": 300, "steps": [step()]}, None, None, None)
    assert not [k for k in out if k.startswith("wr_") or k.startswith("meets_wr_")]


def test_a_broken_invariant_of_the_waiting_room_spike_is_a_correctness_failure():
    out = summary.summarize(
        {"capacity_rps": 300, "steps": [step()]}, None, None, None, wr_spike(passed=False, inversions=3)
    )
    assert out["correct"] == 0 and out["meets_wr_order_inversions"] == 0


def test_jfr_samples_are_charged_to_the_topmost_frame_outside_the_jdk():
    stacks = [
        [
            "java.util.HashMap.get",
            "org.springframework.security.web.FilterChainProxy.doFilter",
            "org.apache.catalina.X.y",
        ],
        ["com.nimbusds.jose.crypto.MACVerifier.verify", "org.springframework.security.A.b"],
        ["sun.nio.ch.EPoll.wait", "org.apache.tomcat.util.net.NioEndpoint.run"],
        ["io.couponevent.api.issuance.IssuanceService.issue", "org.springframework.web.servlet.DispatcherServlet.x"],
        ["org.springframework.beans.BeanUtils.x"],
        ["java.lang.Thread.run"],
        [],
    ]
    total, buckets, _, charged = jfr_share.share(stacks)
    assert total == 6
    assert buckets["Spring Security + JWT (Nimbus)"] == 2
    assert buckets["Tomcat"] == 1 and buckets["our code (io.couponevent)"] == 1
    assert buckets["other Spring"] == 1 and buckets["JDK"] == 1
    assert charged["org.springframework.security.web.FilterChainProxy.doFilter"] == 1


def test_the_summary_states_the_profile_and_what_ended_the_ladder():
    profile = {
        "name": "product",
        "file": "local/profiles/product.env",
        "chart_configuration": True,
        "harness_accommodations": 1,
        "overridden": [],
        "settings": [
            {"name": "API_JAVA_OPTS", "value": "-Xmx3g", "kind": "harness", "reason": "r", "overridden": False}
        ],
    }
    steps = [
        step(rate=1000, ceilings_rps={"in_flight": 8000.0, "tomcat_threads": None}, service_ms=32.0),
        step(rate=1500, passed=False, ended_by="cpu", ceilings_rps={"in_flight": 4000.0}),
    ]
    lad = {
        "capacity_rps": 1000,
        "steps": steps,
        "ended_by": {"rate": 1500, "resource": "cpu"},
        "settings": {"max_in_flight": 256},
    }
    out = summary.summarize(lad, None, None, None, profile=profile)
    assert out["profile"]["name"] == "product" and out["ladder_ended_by"]["resource"] == "cpu"
    assert out["ladder_settings"] == {"max_in_flight": 256}
    md = summary.markdown(out, lad)
    assert "profile product (local/profiles/product.env): the chart's configuration" in md
    assert "in_flight 8,000" in md and "The ladder ended at 1,500/s, by cpu." in md


def capacity_k6(held, *steps):
    """k6's summary of a capacity run: its steps and the largest one held."""
    return {"wr_max_waiting_users": held, "wr_capacity_steps": list(steps)}


def k6_step(waiting, joins, polls, p95=4.0):
    return {
        "waiting": waiting,
        "joins": joins,
        "polls": polls,
        "poll_p95_ms": p95,
        "poll_p99_ms": 9.0,
        "join_p95_ms": 20.0,
    }


def redis(*masters, replica_bytes=10**9):
    """A reading of three Redis nodes: the masters' used memory, and a replica that must not count."""
    nodes = {str(7001 + i): {"role": "master", "used_memory": b} for i, b in enumerate(masters)}
    return {**nodes, "7009": {"role": "slave", "used_memory": replica_bytes}}


def ticks(room, redis_nodes, api=0):
    """Clock ticks of the room, of two Redis nodes (split between them) and of another process."""
    return {
        "waiting-room": room,
        "redis-7001": redis_nodes // 2,
        "redis-7004": redis_nodes - redis_nodes // 2,
        "api": api,
    }


HZ = ladder.HZ


def cost_record():
    """The marks room_capacity.py reads over two steps of 10,000 and 20,000 waiting users."""
    return {
        "marks": [
            {"name": "launch", "ticks": ticks(0, 0), "redis_memory": redis(1_000_000, 2_000_000)},
            {"name": "join-10000", "at": "start", "ticks": ticks(1 * HZ, 0)},
            # 10,000 joins: 2 s of the room, 0.5 s of Redis
            {"name": "join-10000", "at": "end", "ticks": ticks(3 * HZ, HZ // 2)},
            {
                "name": "hold-10000",
                "at": "start",
                "ticks": ticks(4 * HZ, HZ),
                "redis_memory": redis(1_000_000, 3_500_000),
            },
            # 10,000 polls over the hold: 1 s of the room, 0.3 s of Redis
            {"name": "join-20000", "at": "start", "ticks": ticks(5 * HZ, HZ + 3 * HZ // 10)},
            # without its end mark the join phase runs until the hold starts
            {
                "name": "hold-20000",
                "at": "start",
                "ticks": ticks(9 * HZ, 2 * HZ),
                "redis_memory": redis(1_000_100, 5_300_000),
            },
            {"name": "exit", "ticks": ticks(9 * HZ, 2 * HZ)},
        ]
    }


def test_the_room_capacity_steps_carry_the_cpu_per_join_and_per_poll():
    steps = summary.room_cost([k6_step(10000, 10000, 10000), k6_step(20000, 10000, 0)], cost_record())
    first, second = steps
    assert first["room_cpu_us_per_join"] == 200.0 and first["redis_cpu_us_per_join"] == 50.0
    assert first["room_cpu_us_per_poll"] == 100.0 and first["redis_cpu_us_per_poll"] == 30.0
    assert first["cpu_s"]["join"] == {"api": 0.0, "redis": 0.5, "waiting-room": 2.0}
    # the second step's joins until its hold (4 s of the room over 10,000), and no poll at all
    assert second["room_cpu_us_per_join"] == 400.0
    assert second["room_cpu_us_per_poll"] is None and second["redis_cpu_us_per_poll"] is None
    assert (first["poll_p95_ms"], first["joins"]) == (4.0, 10000)


def test_the_redis_memory_per_waiting_user_is_the_masters_growth_per_user_joined():
    steps = summary.room_cost([k6_step(10000, 10000, 10000), k6_step(20000, 8000, 9000)], cost_record())
    # 1,500,000 bytes more on the masters for 10,000 users; the replica's reading is left out
    assert steps[0]["redis_bytes_per_waiting_user"] == 150.0
    assert steps[0]["redis_used_memory_masters"] == 4_500_000
    # from the previous step's reading: 1,800,100 bytes for the 8,000 users this step joined
    assert steps[1]["redis_bytes_per_waiting_user"] == 225.0


@pytest.mark.parametrize(
    "case",
    ["no joins", "no reading before", "a failover in between"],
)
def test_the_redis_memory_per_waiting_user_is_none_when_it_cannot_be_had(case):
    record = cost_record()
    joins = 10000
    if case == "no joins":
        joins = 0
    elif case == "no reading before":
        del record["marks"][0]["redis_memory"]
    else:
        # a third master appeared: a replica promoted
        record["marks"][3]["redis_memory"] = {**redis(1, 2), "7003": {"role": "master", "used_memory": 9}}
    (step,) = summary.room_cost([k6_step(10000, joins, 10000)], record)
    assert step["redis_bytes_per_waiting_user"] is None


def test_a_step_whose_phases_were_not_marked_has_no_cost():
    (step,) = summary.room_cost([k6_step(30000, 10000, 9000)], cost_record())
    assert all(step[k] is None for k in summary.ROOM_COST.values()) and step["cpu_s"] == {}


def test_the_room_cost_is_reported_at_the_largest_step_held():
    capacity = capacity_k6(10000, k6_step(10000, 10000, 10000), k6_step(20000, 10000, 0, p95=70.0))
    out = summary.summarize(
        {"capacity_rps": 300, "steps": [step()]}, None, None, None, None, capacity, None, cost_record()
    )
    assert out["wr_room_cpu_us_per_join"] == 200.0 and out["wr_room_cpu_us_per_poll"] == 100.0
    assert out["wr_redis_cpu_us_per_poll"] == 30.0 and out["wr_redis_bytes_per_waiting_user"] == 150.0
    assert out["wr_capacity_steps"][1]["room_cpu_us_per_join"] == 400.0
    assert not [k for k in out if k.startswith("meets_wr_room") or k.startswith("meets_wr_redis")]
    md = summary.markdown(out, None)
    assert "| `wr_room_cpu_us_per_poll` (at 10,000 waiting) | | 100 |" in md
    assert "| 10,000 | 10,000 | 20.0 | 10,000 | 4.0 | 9.0 | 200 | 100 | 50 | 30 | 150 |" in md
    # the second step: 0.7 s of Redis and 1,800,100 bytes more over its 10,000 joins
    assert "| 20,000 | 10,000 | 20.0 | 0 | 70.0 | 9.0 | 400 | – | 70 | – | 180 |" in md


def test_without_a_step_held_or_its_marks_the_room_cost_is_absent_or_none():
    capacity = capacity_k6(0, k6_step(10000, 10000, 10000, p95=90.0))
    out = summary.summarize(
        {"capacity_rps": 300, "steps": [step()]}, None, None, None, None, capacity, None, cost_record()
    )
    assert all(out[k] is None for k in summary.ROOM_COST)
    # a run without the marks (k6's summary alone): the steps as k6 wrote them
    capacity["wr_max_waiting_users"] = 10000
    out = summary.summarize({"capacity_rps": 300, "steps": [step()]}, None, None, None, None, capacity)
    assert out["wr_capacity_steps"] == capacity["wr_capacity_steps"] and out["wr_room_cpu_us_per_poll"] is None
    assert "| 10,000 | 10,000 | 20.0 | 10,000 | 90.0 | 9.0 | – | – | – | – | – |" in summary.markdown(out, None)
