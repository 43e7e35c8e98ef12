"""The ceilings a ladder step runs under (local/bench/ceilings.py) and what ends the ladder: pure
logic, no harness."""

import pytest

import ceilings

SHIPPED = {
    "max_in_flight": 256,
    "api_virtual_threads": True,
    "api_tomcat_threads": 200,
    "api_max_connections": 15000,
    "consumer_concurrency": 1,
    "consumer_pool": 8,
    "consumer_max_inserts_per_second": 0,
}


def test_the_in_flight_bound_over_the_slot_time_is_its_ceiling():
    # the arithmetic: 64 at once, 30 ms a slot
    c = ceilings.ceilings({**SHIPPED, "max_in_flight": 64}, service_s=0.030, response_s=0.035)
    assert c["in_flight"] == pytest.approx(2133.3, abs=0.1)
    assert ceilings.ceilings(SHIPPED, service_s=0.030)["in_flight"] == pytest.approx(8533.3, abs=0.1)


def test_virtual_threads_impose_no_thread_ceiling_and_platform_threads_do():
    assert ceilings.ceilings(SHIPPED, response_s=0.05)["tomcat_threads"] is None
    c = ceilings.ceilings({**SHIPPED, "api_virtual_threads": False}, response_s=0.05)
    assert c["tomcat_threads"] == 4000.0
    assert c["tomcat_connections"] == 300000.0


def test_the_consumer_writes_with_its_threads_or_its_pool_whichever_is_fewer():
    assert ceilings.ceilings(SHIPPED, consumer_cpu_us_per_row=100)["consumer_writes"] == 10000.0
    assert (
        ceilings.ceilings({**SHIPPED, "consumer_concurrency": 3}, consumer_cpu_us_per_row=100)["consumer_writes"]
        == 30000.0
    )
    assert (
        ceilings.ceilings({**SHIPPED, "consumer_concurrency": 12}, consumer_cpu_us_per_row=100)["consumer_writes"]
        == 80000.0
    )
    # a write cap below that is the ceiling
    capped = ceilings.ceilings({**SHIPPED, "consumer_max_inserts_per_second": 500}, consumer_cpu_us_per_row=100)
    assert capped["consumer_writes"] == 500.0


def test_nothing_measured_no_ceiling():
    c = ceilings.ceilings(SHIPPED)
    assert c == {"in_flight": None, "tomcat_threads": None, "tomcat_connections": None, "consumer_writes": None}


def test_a_busy_machine_ends_a_step_by_cpu_even_near_a_bound():
    near = {"in_flight": 2100.0, "consumer_writes": None}
    assert ceilings.ended_by(2000, busy_cores=1.9, cores=2, step_ceilings=near) == "cpu"


def test_an_idle_machine_names_the_lowest_bound_the_rate_reached():
    # the case: 1.28 of 2 cores busy, 2,000/s offered against 64 / 30 ms
    c = {"in_flight": 2133.3, "tomcat_threads": None, "tomcat_connections": 400000.0, "consumer_writes": 1950.0}
    assert ceilings.ended_by(2000, busy_cores=1.28, cores=2, step_ceilings=c) == "consumer_writes"
    c["consumer_writes"] = 9000.0
    assert ceilings.ended_by(2000, busy_cores=1.28, cores=2, step_ceilings=c) == "in_flight"


def test_a_step_below_every_bound_on_an_idle_machine_is_unexplained():
    assert ceilings.ended_by(1000, busy_cores=0.5, cores=2, step_ceilings={"in_flight": 8000.0}) == "unexplained"


def test_the_ladder_ends_at_the_lowest_failing_rate_above_capacity():
    steps = [
        {"label": "warmup", "rate": 300, "passed": False, "ended_by": "cpu"},
        {"label": "grow", "rate": 1000, "passed": True},
        {"label": "grow", "rate": 1500, "passed": False, "ended_by": "in_flight"},
        {"label": "bisect", "rate": 1250, "passed": False, "ended_by": "cpu"},
    ]
    assert ceilings.ladder_end(steps, 1000) == {"rate": 1250, "resource": "cpu"}
    assert ceilings.ladder_end(steps[:2], 1000) is None


def test_the_settings_in_force_are_the_defaults_unless_the_environment_sets_them():
    defaults = {
        "coupon-api": {
            "coupon.issuance.max-in-flight": 256,
            "spring.threads.virtual.enabled": True,
            "server.tomcat.max-connections": 15000,
        },
        "coupon-consumer": {
            "coupon.consumer.concurrency": 1,
            "spring.datasource.hikari.maximum-pool-size": 8,
            "coupon.consumer.max-inserts-per-second": 0,
        },
    }
    s = ceilings.settings_in_force(defaults, {})
    assert s == SHIPPED
    s = ceilings.settings_in_force(
        defaults,
        {
            "COUPON_ISSUANCE_MAX_IN_FLIGHT": "64",
            "API_TOMCAT_MAX_CONNECTIONS": "20000",
            "COUPON_CONSUMER_CONCURRENCY": "3",
        },
    )
    assert (s["max_in_flight"], s["api_max_connections"], s["consumer_concurrency"]) == (64, 20000, 3)


def test_timer_means_come_from_the_scrapes_difference():
    before = (
        'coupon_issuance_duration_seconds_count{result="accepted"} 100\n'
        'coupon_issuance_duration_seconds_sum{result="accepted"} 2.0\n'
        'coupon_issuance_duration_seconds_count{result="sold_out"} 0\n'
        'coupon_issuance_duration_seconds_sum{result="sold_out"} 0\n'
    )
    after = (
        "# HELP coupon_issuance_duration_seconds_count x\n"
        'coupon_issuance_duration_seconds_count{result="accepted"} 1100\n'
        'coupon_issuance_duration_seconds_sum{result="accepted"} 32.0\n'
        'coupon_issuance_duration_seconds_count{result="sold_out"} 1000\n'
        'coupon_issuance_duration_seconds_sum{result="sold_out"} 10.0\n'
        'coupon_issuance_duration_seconds_max{result="accepted"} 9.0\n'
    )
    assert ceilings.mean_seconds(before, after, "coupon_issuance_duration_seconds") == pytest.approx(0.02)
    assert ceilings.mean_seconds(
        before, after, "coupon_issuance_duration_seconds", 'result="accepted"'
    ) == pytest.approx(0.03)
    assert ceilings.mean_seconds(after, after, "coupon_issuance_duration_seconds") is None
