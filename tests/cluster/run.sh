#!/usr/bin/env bash
# make test-cluster: the event on a real Kubernetes node. Brings up the single-node cluster
# (k8s/node/node.sh) with KEDA, the local harness inside the node's network namespace as the event's
# external Kafka, Redis Cluster and MySQL, builds and imports the images, then runs
# tests/cluster/test_cluster.py in that namespace (install, helm test, issuance from a pod, KEDA
# scaling on real lag, the load test's runner, upgrade, uninstall). Writes build/cluster/report.json
# and build/cluster/timeline.txt. Everything is stopped on exit unless KEEP=1.
# Extra arguments go to pytest (e.g. -k install).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
NODE="$ROOT/k8s/node/node.sh"
export CLUSTER_OUT="${CLUSTER_OUT:-$ROOT/build/cluster}"
export HARNESS_HOST=10.245.0.1 RUN_DIR="$ROOT/.run/cluster/infra"
log() { printf '[%s test-cluster] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

cleanup() {
  if [ "${KEEP:-0}" = 1 ]; then
    log "KEEP=1: the node and the harness stay up ($NODE status; $NODE down)"
    return
  fi
  "$NODE" exec "$ROOT/local/infra.sh" down >/dev/null 2>&1 || true
  "$NODE" down >/dev/null 2>&1 || true
  rm -rf "$RUN_DIR"
}
trap cleanup EXIT INT TERM

mkdir -p "$CLUSTER_OUT"
rm -f "$CLUSTER_OUT"/report.json "$CLUSTER_OUT"/timeline.txt
t0=$SECONDS
"$ROOT/scripts/tools.sh" node apt kafka
log "tools ready ($((SECONDS - t0)) s)"
t=$SECONDS; "$NODE" up; log "node up ($((SECONDS - t)) s)"
t=$SECONDS; "$ROOT/k8s/node/platform.sh" install; log "platform installed ($((SECONDS - t)) s)"
# From nothing: a harness left by an earlier run would carry its issued coupons into this one.
"$NODE" exec "$ROOT/local/infra.sh" down >/dev/null 2>&1 || true
rm -rf "$RUN_DIR"
t=$SECONDS; "$NODE" exec "$ROOT/local/infra.sh" up; log "harness up on $HARNESS_HOST ($((SECONDS - t)) s)"
t=$SECONDS; "$ROOT/k8s/node/event-images.sh" all; log "images built and imported ($((SECONDS - t)) s)"
# The namespace reaches no package index: the suite's and the verifier's venvs are made out here.
source "$ROOT/local/verifier/venv.sh"
venv_python tests-cluster "$ROOT/tests/requirements.txt" "$HERE/requirements.txt" >/dev/null
venv_python verifier "$ROOT/local/verifier/requirements.txt" >/dev/null
# -s: the timeline's events are printed as they happen.
"$NODE" exec "$ROOT/tests/pytest.sh" "$HERE" -s "$@"
