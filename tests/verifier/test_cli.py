"""The command line its callers use (local/demo.sh, local/bench.sh, tests/loadtests/smoke.sh)."""

import pytest

from verifier.cli import parser, spike_cpu_summary
from verifier.settings import Settings


@pytest.mark.parametrize(
    "argv",
    [
        "token --sub user-1",
        "token --admin",
        "register --coupon 42 --quantity 10",
        "register --coupon 42 --quantity 0 --wait-ready 0 --opens-in 5 --duration 60",
        "verify --k6 s.json --quantity 40 --drain-timeout 60 --out o.json",
        "verify --k6 s.json --quantity 40 --drain-timeout 2 --reconcile-timeout 1 --no-kafka",
        "verify --k6 s.json --quantity 40 --ignore-thresholds --latency-reported --lag-timeout 5 --coupon 42",
        "verify --k6 s.json --quantity 40 --outcomes main-k6.log --outcomes late-k6.log",
        "cpu snapshot before.json",
        "cpu diff before.json --cpu-seconds k6=3.5",
        "cpu watch spike.json --for 10s --tail 2s",
        "quiet --max-cores 0.5 --hold 3 --timeout 60",
        "report --main m --soldout s --json j --markdown md --cpu c --sustained t --gauge g",
        "gauge",
        "timed --out k6.json loadtests/run.sh spike.js --quiet",
    ],
)
def test_every_subcommand_parses(argv):
    assert parser().parse_args(argv.split()).cmd == argv.split()[0]


def test_outcomes_take_one_log_per_k6_run():
    a = parser().parse_args(["verify", "--k6", "s.json", "--outcomes", "main-k6.log", "--outcomes", "late-k6.log"])
    assert a.outcomes == ["main-k6.log", "late-k6.log"]
    assert parser().parse_args(["verify", "--k6", "s.json"]).outcomes == []


def test_timed_passes_the_command_through():
    assert parser().parse_args(["timed", "--out", "o", "k6", "run", "-q"]).command == ["k6", "run", "-q"]


def test_settings_follow_port_offset():
    s = Settings.from_env({"PORT_OFFSET": "1000"})
    assert s.api_url == "http://127.0.0.1:9080" and s.management_url == "http://127.0.0.1:9081"
    assert s.db_address() == ("127.0.0.1", 14306, "coupon") and s.kafka_bootstrap == "127.0.0.1:20092"


def test_settings_read_the_harness_environment():
    s = Settings.from_env(
        {"DB_URL": "jdbc:mariadb://db:3307/events?useSsl=false", "API_URL": "http://api:1/", "JWT_SECRET": "k"}
    )
    assert s.db_address() == ("db", 3307, "events") and s.api_url == "http://api:1" and s.secret == "k"


def test_cpu_watch_reads_its_window_as_a_duration():
    a = parser().parse_args(["cpu", "watch", "spike.json", "--for", "10s", "--tail", "2s"])
    assert (a.for_ms, a.tail_ms) == (10000, 2000)


def test_spike_cpu_summary_speaks_in_cores():
    line = spike_cpu_summary(
        {
            "elapsed_s": 12.0,
            "cores": 2,
            "percent_of_machine": {"coupon-waiting-room": 22.5, "redis": 10.0},
            "machine_busy_percent": 95.0,
            "other_percent": 62.5,
        }
    )
    assert "1.90 of 2 cores busy" in line and "coupon-waiting-room 0.45" in line and "k6 and the rest 1.25" in line
