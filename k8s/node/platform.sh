#!/usr/bin/env bash
# The platform layer of the single-node cluster (what operators/install.sh installs on EKS):
#   - KEDA, running, installed from KEDA's own deployment manifests (config/minimal of the release's
#     Go module: CRDs, RBAC, operator, metrics API server, without the admission webhooks), its
#     operator and metrics API server built here from the same module (scripts/tools.sh keda) and
#     renamed with kustomize's images transformer, as a mirror would be;
#   - the CRDs of the operators whose images cannot be had here (prometheus-operator, Strimzi,
#     k6-operator), from ../shared/crds: the event's ServiceMonitors, rules and TestRuns are stored
#     and validated against them, and nothing acts on them.
#
#   k8s/node/platform.sh install     build and import KEDA's images, apply everything, wait for the metrics API
#   k8s/node/platform.sh manifests   print KEDA's manifests as install applies them
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/k8s/node"
DIR="${NODE_DIR:-$ROOT/.run/cluster/node}"
BIN="${TOOLS_BIN:-$ROOT/.tools/bin}"
IMAGES_DIR="$ROOT/build/cluster/images"
SHARED="${SHARED_DIR:-$ROOT/../shared}"
REGISTRY=images.coupon-event.local
KEDA_VERSION=$(sed -n 's/^KEDA_VERSION=\(v[0-9.]*\).*/\1/p' "$ROOT/scripts/tools.sh")
TAG=${KEDA_VERSION#v}
node() { "$HERE/node.sh" "$@"; }
log() { printf '[%s platform] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

module_dir() {
  (cd "$ROOT/.tools/src" 2>/dev/null || cd /tmp
   GOFLAGS=-mod=mod go mod download -json "github.com/kedacore/keda/v2@$KEDA_VERSION" \
     | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
}

manifests() {
  local work="$DIR/keda"
  rm -rf "$work"; mkdir -p "$work/overlay"
  cp -r "$(module_dir)/config" "$work/config"; chmod -R u+w "$work/config"
  cat > "$work/overlay/kustomization.yaml" <<EOF
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ../config/minimal
images:
  - {name: ghcr.io/kedacore/keda, newName: $REGISTRY/kedacore/keda, newTag: "$TAG"}
  - {name: ghcr.io/kedacore/keda-metrics-apiserver, newName: $REGISTRY/kedacore/keda-metrics-apiserver, newTag: "$TAG"}
patches:
  - target: {kind: Deployment, name: keda-operator}
    patch: |-
      - {op: replace, path: /spec/template/spec/containers/0/imagePullPolicy, value: IfNotPresent}
  - target: {kind: Deployment, name: keda-metrics-apiserver}
    patch: |-
      - {op: replace, path: /spec/template/spec/containers/0/imagePullPolicy, value: IfNotPresent}
EOF
  "$BIN/kubectl" kustomize "$work/overlay"
}

crds() {
  local d
  for d in prometheus-operator strimzi k6-operator; do
    [ -d "$SHARED/crds/$d" ] || { log "$SHARED/crds/$d missing (SHARED_DIR)"; exit 1; }
    node exec "$BIN/kubectl" apply --server-side --force-conflicts -f "$SHARED/crds/$d" >/dev/null
  done
  node exec "$BIN/kubectl" wait --for=condition=Established crd --all --timeout=300s >/dev/null
  log "CRDs of prometheus-operator, Strimzi and k6-operator established"
  # The cluster's PriorityClasses, as operators/install.sh applies them on EKS: the chart's pods
  # name them by default.
  node exec "$BIN/kubectl" apply --server-side --force-conflicts -f "$ROOT/k8s/priorityclasses.yaml" >/dev/null
}

install() {
  local t0=$SECONDS
  crds
  for b in keda-operator keda-adapter; do
    [ -x "$BIN/$b" ] || { log "$BIN/$b missing: run scripts/tools.sh keda"; exit 1; }
  done
  mkdir -p "$IMAGES_DIR"
  # The upstream images run as 65532 (distroless nonroot); the manifests require a non-root user.
  python3 "$HERE/images.py" build --tag "$REGISTRY/kedacore/keda:$TAG" --out "$IMAGES_DIR/keda.tar" \
    --entrypoint '["/keda"]' --user 65532:65532 "$BIN/keda-operator=/keda"
  python3 "$HERE/images.py" build --tag "$REGISTRY/kedacore/keda-metrics-apiserver:$TAG" \
    --out "$IMAGES_DIR/keda-metrics-apiserver.tar" --entrypoint '["/keda-adapter"]' --user 65532:65532 \
    "$BIN/keda-adapter=/keda-adapter"
  node import "$IMAGES_DIR/keda.tar" "$IMAGES_DIR/keda-metrics-apiserver.tar"
  manifests > "$DIR/keda.yaml"
  node exec "$BIN/kubectl" apply --server-side --force-conflicts -f "$DIR/keda.yaml" >/dev/null
  node exec "$BIN/kubectl" -n keda rollout status deployment/keda-operator --timeout=600s >/dev/null
  node exec "$BIN/kubectl" -n keda rollout status deployment/keda-metrics-apiserver --timeout=600s >/dev/null
  node exec "$BIN/kubectl" wait --for=condition=Available apiservice/v1beta1.external.metrics.k8s.io \
    --timeout=600s >/dev/null
  log "KEDA $KEDA_VERSION running, external metrics API available ($((SECONDS - t0)) s)"
}

case "${1:-}" in
  install) install ;;
  manifests) manifests ;;
  *) sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
