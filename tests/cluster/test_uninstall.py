"""The end of the cluster test's event: nothing of it left, and no reinstall over its Kafka volumes.

Runs last (file order), after test_skaffold.py's `skaffold delete` has uninstalled the release that
test_cluster.py installed and `skaffold run` upgraded; when skaffold did not get that far, helm
uninstalls it here. Figures go to build/cluster/report.json with test_cluster.py's.
"""

from __future__ import annotations

from test_cluster import KAFKA, KAFKA_CLIENT, NS, PROBE_USER, RELEASE, SLOW, VALUES, chart  # noqa: F401  chart: fixture

from kube import helm, kubectl, kubectl_json, left_after, object_names


def release_installed() -> bool:
    return helm("status", RELEASE, "-n", NS, check=False).returncode == 0


def test_uninstall_leaves_nothing(report):
    kubectl("-n", NS, "delete", "jobs", "-l", "coupon-event.io/test=cluster", "--wait=true", timeout=300)
    kubectl("-n", NS, "delete", "pod", KAFKA_CLIENT, "--wait=true", check=False, timeout=120)
    kubectl("-n", NS, "delete", "kafkauser", PROBE_USER, "--wait=true", check=False, timeout=120)
    if release_installed():
        helm("uninstall", RELEASE, "-n", NS, "--wait", "--timeout", f"{SLOW}s", timeout=SLOW + 60)
        report.event("helm uninstall")
    else:
        report.event("helm uninstall: the release is gone already (skaffold delete)")
    kinds = (
        "all,configmaps,secrets,serviceaccounts,roles,rolebindings,networkpolicies,poddisruptionbudgets,"
        "scaledobjects.keda.sh,horizontalpodautoscalers,servicemonitors.monitoring.coreos.com,"
        "prometheusrules.monitoring.coreos.com,testruns.k6.io,jobs"
    )

    left = left_after(
        lambda: object_names(NS, kinds, f"app.kubernetes.io/instance={RELEASE}") + object_names(NS, "pods")
    )
    report.figures["uninstall_leftovers"] = len(left)
    report.event(f"uninstalled: {len(left)} objects left")
    assert not left, left


def test_reinstall_over_the_kafka_volumes_is_refused(chart, report):  # noqa: F811  the fixture
    """deleteClaim false keeps the Kafka nodes' claims after helm uninstall; helm install of the same
    event name over them is refused at render time, saying what to do (templates/validate.yaml),
    instead of a Kafka that crash-loops on its old cluster id."""
    claims = kubectl_json("-n", NS, "get", "pvc", "-l", f"strimzi.io/cluster={KAFKA}")["items"]
    proc = helm("install", RELEASE, chart, "-n", NS, "-f", str(VALUES), "--timeout", "120s", check=False, timeout=300)
    message = next(
        (ln.strip() for ln in (proc.stdout + proc.stderr).splitlines() if "leftover Kafka volumes" in ln), None
    )
    report.figures["reinstall"] = {
        "claims_left": len(claims),
        "outcome": "refused" if proc.returncode != 0 else "installed",
        "message": message,
    }
    report.event(f"reinstall over {len(claims)} claims: {report.figures['reinstall']['outcome']}")
    # Three brokers' and three controllers' claims.
    assert len(claims) == 6, [c["metadata"]["name"] for c in claims]
    assert proc.returncode != 0 and message, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert f"kubectl -n {NS} delete pvc -l strimzi.io/cluster={KAFKA}" in message, message
