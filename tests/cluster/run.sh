#!/usr/bin/env bash
# make test-cluster: the event on a real Kubernetes node. Brings up the single-node cluster
# (k8s/node/node.sh) with KEDA and Strimzi's cluster operator, the local harness's Redis Cluster and
# MySQL inside the node's network namespace as the event's external stores (its Kafka is the chart's
# own, run by Strimzi), builds the images and pushes them to the node's registry, then runs
# tests/cluster/test_cluster.py in that namespace (install, the Strimzi Kafka and its topics, SCRAM
# refusing a producer without credentials, helm test, issuance from a pod,
# the HPAs reading CPU from metrics-server, the NetworkPolicies enforced by kube-router (allowed and
# denied paths), KEDA scaling on real lag, the load test through the k6-operator, the images pulled,
# upgrade, skaffold's run, dev and delete on that event, uninstall). Writes build/cluster/report.json
# and build/cluster/timeline.txt. Everything is stopped on exit unless KEEP=1.
# Extra arguments go to pytest (e.g. -k install).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CLUSTER="$ROOT/k8s/node/cluster.sh"
export CLUSTER_OUT="${CLUSTER_OUT:-$ROOT/build/cluster}"
eval "$("$CLUSTER" env)"
log() { printf '[%s test-cluster] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

cleanup() {
  if [ "${KEEP:-0}" = 1 ]; then
    log "KEEP=1: the node and the harness stay up (make cluster-status; make cluster-down)"
    return
  fi
  "$CLUSTER" down >/dev/null 2>&1 || true
}
skaffold_build=""
stop_build() { [ -z "$skaffold_build" ] || kill -- "-$skaffold_build" 2>/dev/null || true; }
trap 'stop_build; cleanup' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$CLUSTER_OUT"
rm -f "$CLUSTER_OUT"/report.json "$CLUSTER_OUT"/timeline.txt
# From nothing: a harness left by an earlier run would carry its issued coupons into this one.
"$CLUSTER" down >/dev/null 2>&1 || true
"$CLUSTER" up
# The namespace reaches no package index: the suite's and the verifier's venvs are made out here.
source "$ROOT/local/verifier/venv.sh"
venv_python tests-cluster "$ROOT/tests/requirements.txt" "$HERE/requirements.txt" >/dev/null
venv_python verifier "$ROOT/local/verifier/requirements.txt" >/dev/null
# test_skaffold.py runs skaffold.yaml's dev loop on test_cluster.py's event (its own report:
# build/skaffold), and test_uninstall.py ends it. Only test_skaffold.py needs skaffold: it builds (or
# waits for scripts/test.sh's background build) while test_cluster.py runs, in the CPU time the
# event leaves idle; test_skaffold.py's fixture waits for SKAFFOLD_BUILD_RC, the build's exit status.
export SKAFFOLD_BUILD_RC="$CLUSTER_OUT/skaffold-build.rc"
rm -f "$SKAFFOLD_BUILD_RC"
idle=(); command -v chrt >/dev/null && idle=(chrt --idle 0)
setsid "${idle[@]}" bash -c '"$1" skaffold > "$2" 2>&1; echo $? > "$3"' _ \
  "$ROOT/scripts/tools.sh" "$CLUSTER_OUT/skaffold-build.log" "$SKAFFOLD_BUILD_RC" &
skaffold_build=$!
# -s: the timeline's events are printed as they happen.
"$ROOT/k8s/node/node.sh" exec "$ROOT/tests/pytest.sh" "$HERE" -s "$@"
