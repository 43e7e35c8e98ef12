"""Alert rules: syntax (promtool check), behaviour (promtool unit tests), metadata and runbooks."""

import re
import subprocess

from conftest import ROOT, RULE_FILES, promtool

PROMTOOL_TESTS = sorted(ROOT.joinpath("tests", "observability").glob("*.test.yaml"))

RUNBOOKS = ROOT / "docs" / "runbooks.md"
REQUIRED_ALERTS = {
    "CouponConsumerLagHigh",
    "CouponPersistStalled",
    "CouponDeadLetterRecords",
    "CouponApiLatencyHigh",
    "CouponApiServerErrors",
    "CouponIssuanceShedding",
    "KafkaUnderReplicatedPartitions",
    "KafkaBrokersMissing",
    "RedisClusterNotOk",
    "CouponStockExhausted",
    "CouponConsumerScaleCeiling",
    "CouponWaitingRoomNotDraining",
}


def run(*args):
    proc = subprocess.run([promtool(), *args], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_rule_files_pass_promtool_check():
    out = run("check", "rules", *map(str, RULE_FILES))
    assert "SUCCESS" in out


def test_promtool_unit_tests_pass():
    assert PROMTOOL_TESTS, "no promtool unit tests"
    out = run("test", "rules", *map(str, PROMTOOL_TESTS))
    assert "SUCCESS" in out


def test_every_alert_has_a_promtool_test_that_expects_it_to_fire(rules):
    tested = "".join(f.read_text() for f in PROMTOOL_TESTS)
    for _, rule in rules:
        if "alert" in rule:
            name = rule["alert"]
            assert re.search(rf"alertname: {name}\n\s+exp_alerts:\n\s+- exp_labels", tested), (
                f"{name}: no unit test expects it to fire"
            )
            assert re.search(rf"alertname: {name}\n\s+exp_alerts: \[\]", tested), (
                f"{name}: no unit test expects it to stay silent"
            )


def test_required_alerts_exist(rules):
    assert {r["alert"] for _, r in rules if "alert" in r} >= REQUIRED_ALERTS


def test_alerts_carry_severity_summary_description_and_runbook(rules):
    anchors = {
        re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-")
        for h in re.findall(r"^#+ (.+)$", RUNBOOKS.read_text(), re.M)
    }
    for _, rule in rules:
        if "alert" not in rule:
            continue
        name = rule["alert"]
        assert rule["labels"]["severity"] in {"critical", "warning", "info"}, name
        ann = rule["annotations"]
        assert ann.get("summary") and ann.get("description"), name
        url = ann["runbook_url"]
        assert url.startswith("docs/runbooks.md#"), name
        anchor = url.split("#", 1)[1]
        assert anchor == name.lower(), f"{name}: anchor should be the alert name"
        assert anchor in anchors, f"{name}: docs/runbooks.md has no section #{anchor}"


def test_rules_do_not_hard_code_a_namespace(rules):
    for _, rule in rules:
        expr = rule["expr"]
        assert not re.search(r'namespace\s*(=|=~|!=|!~)\s*"', expr), f"hard-coded namespace in {expr}"


def test_alert_expressions_keep_the_namespace_label(rules):
    """Aggregations must keep `namespace` so every alert says which event it is about."""
    for _, rule in rules:
        expr = rule["expr"]
        for clause in re.findall(r"\b(?:by|without)\s*\(([^)]*)\)", expr):
            assert "namespace" in clause, f"{rule.get('alert') or rule.get('record')}: by ({clause})"
