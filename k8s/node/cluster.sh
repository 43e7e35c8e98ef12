#!/usr/bin/env bash
# The single-node cluster with everything an event needs, in one place for `make cluster-up`,
# `make cluster-down` and tests/cluster/run.sh: the pinned tools, the node (node.sh), the platform
# (platform.sh, Strimzi's operator included), the local harness's Redis Cluster and MariaDB on the
# node's address as the event's external data stores (its Kafka is the chart's own, run by Strimzi),
# and the event's images (event-images.sh).
#
#   k8s/node/cluster.sh up      start all of it (idempotent); prints the time of each part
#   k8s/node/cluster.sh down    stop all of it and remove its state, the harness's data included
#   k8s/node/cluster.sh env     print HARNESS_HOST and RUN_DIR of the node's harness
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
NODE="$ROOT/k8s/node/node.sh"
HARNESS_HOST=$(sed -n 's/^NODE_IP=\([0-9.]*\).*/\1/p' "$NODE")
RUN_DIR="$ROOT/.run/cluster/infra"
export HARNESS_HOST RUN_DIR
log() { printf '[%s cluster] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

up() {
  local t=$SECONDS
  "$ROOT/scripts/tools.sh" node apt kafka; log "tools ready ($((SECONDS - t)) s)"
  t=$SECONDS; "$NODE" up; log "node up ($((SECONDS - t)) s)"
  t=$SECONDS; "$ROOT/k8s/node/platform.sh" install; log "platform installed ($((SECONDS - t)) s)"
  t=$SECONDS; HARNESS_KAFKA=0 "$NODE" exec "$ROOT/local/infra.sh" up; log "harness (Redis, MariaDB) up on $HARNESS_HOST ($((SECONDS - t)) s)"
  t=$SECONDS; "$ROOT/k8s/node/event-images.sh" all; log "images built and pushed ($((SECONDS - t)) s)"
}

down() {
  "$NODE" exec "$ROOT/local/infra.sh" down >/dev/null 2>&1 || true
  "$NODE" down
  rm -rf "$RUN_DIR"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  env) echo "export HARNESS_HOST=$HARNESS_HOST RUN_DIR=$RUN_DIR" ;;
  *) sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
