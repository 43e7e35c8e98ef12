"""The harness's profiles (local/profiles/, read by local/harness_profile.py): every line marked and
argued, the product profile changing nothing a service does, and the settings in force as the
summaries report them."""

import pathlib
import re

import pytest
import yaml

import harness_profile as hp

ROOT = pathlib.Path(__file__).resolve().parents[2]
LOCAL = ROOT / "local"

# What a service reads from its environment: a profile line of these names changes its behaviour.
SERVICE_SETTINGS = ("COUPON_", "SPRING_", "SERVER_", "MANAGEMENT_")


def test_a_line_is_a_setting_its_kind_and_its_reason():
    s = hp.parse("# a comment\n\nA_B=-Xmx1g -Xms1g  # harness: one process for many pods\n")
    assert s == [{"name": "A_B", "value": "-Xmx1g -Xms1g", "kind": "harness", "reason": "one process for many pods"}]


@pytest.mark.parametrize(
    "line",
    ["A=1", "A=1  # harness:", "A=1  # maybe: a reason", "a=1  # chart: lower case", "A 1  # chart: no equals sign"],
)
def test_a_line_without_kind_or_reason_is_refused(line):
    with pytest.raises(hp.ProfileError):
        hp.parse(line)


def test_an_included_profile_comes_first_and_later_lines_replace_its_own():
    texts = {"base": "A=1  # chart: a\nB=2  # harness: b\n", "slow": "include base\nB=3  # harness: slower\n"}
    s = hp.parse(texts["slow"], "slow", texts.get)
    assert [(x["name"], x["value"]) for x in s] == [("A", "1"), ("B", "3")]


def test_the_environment_wins_and_the_profile_in_force_says_so():
    s = hp.parse("A=1  # chart: a\nB=2  # harness: b\n")
    p = hp.in_force("product", s, {"B": "5"})
    assert p["overridden"] == ["B"] and not p["chart_configuration"]
    assert [x["value"] for x in p["settings"]] == ["1", "5"] and p["settings"][1]["profile_value"] == "2"
    assert hp.exports(s, {"B": "5"}) == "export A=1\n"
    assert hp.in_force("product", s, {"B": "2"})["chart_configuration"]
    assert "the chart's configuration" in hp.describe(hp.in_force("product", s, {}))


@pytest.mark.parametrize("name", ["product", "slow-host"])
def test_every_shipped_profile_reads(name):
    s = hp.read(name)
    assert s and all(x["reason"] for x in s)


def test_the_product_profile_changes_nothing_a_service_does():
    changed = [x["name"] for x in hp.read("product") if x["name"].startswith(SERVICE_SETTINGS)]
    assert changed == [], f"the product profile sets service settings: {changed}"


def test_the_product_profiles_failure_detection_is_the_charts():
    s = {x["name"]: x for x in hp.read("product")}
    for name in (
        "KAFKA_BROKER_SESSION_TIMEOUT_MS",
        "KAFKA_BROKER_HEARTBEAT_INTERVAL_MS",
        "REDIS_CLUSTER_NODE_TIMEOUT_MS",
    ):
        assert s[name]["kind"] == "chart", name
    values = yaml.safe_load((ROOT / "values.yaml").read_text())
    strimzi, redis = values["kafka"]["strimzi"], values["redis-cluster"]
    assert int(s["KAFKA_BROKER_SESSION_TIMEOUT_MS"]["value"]) == strimzi["brokerSessionTimeoutMs"]
    assert int(s["KAFKA_BROKER_HEARTBEAT_INTERVAL_MS"]["value"]) == strimzi["brokerHeartbeatIntervalMs"]
    conf = dict(line.split(None, 1) for line in redis["redis"]["configmap"].splitlines() if line.strip())
    assert int(s["REDIS_CLUSTER_NODE_TIMEOUT_MS"]["value"]) == int(conf["cluster-node-timeout"])


def test_the_harness_redis_has_the_charts_shape():
    """As many nodes and replicas per master as the chart's redis-cluster (a promoted master keeps a
    replica, decision 0049)."""
    cluster = yaml.safe_load((ROOT / "values.yaml").read_text())["redis-cluster"]["cluster"]
    common = (ROOT / "local/lib/common.sh").read_text()
    ports = re.search(r"for p in ([0-9 ]+); do REDIS_PORTS", common).group(1).split()
    create = re.search(r"--cluster-replicas (\d+)", (ROOT / "local/redis/redis.sh").read_text()).group(1)
    assert (len(ports), int(create)) == (cluster["nodes"], cluster["replicas"])
