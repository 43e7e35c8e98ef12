#!/usr/bin/env bash
# The platform layer of the single-node cluster (what operators/install.sh installs on EKS):
#   - KEDA, running, installed from KEDA's own deployment manifests (config/minimal of the release's
#     Go module: CRDs, RBAC, operator, metrics API server, without the admission webhooks), its
#     operator and metrics API server built here from the same module (scripts/tools.sh keda),
#     pushed to the node's registry and renamed with kustomize's images transformer, as a mirror
#     would be;
#   - the k6-operator, running, installed into k6-operator-system from its own Helm chart at the
#     release operators/versions.env pins (with operators/values/k6-operator.yaml, as on EKS), its
#     controller built from the same source (scripts/tools.sh k6-operator); its starter image is
#     Debian's curl with a shell, pulled by its upstream name through the node's ghcr.io mirror;
#   - metrics-server, running, from its own release manifests (manifests/overlays/release of the
#     pinned Go module), built here from the same module (scripts/tools.sh metrics-server): the
#     resource metrics API the CPU-based HPAs read;
#   - Traefik v3, running in namespace traefik (manifests/traefik.yaml), built here from its Go module
#     (scripts/tools.sh traefik): the ingress controller of class `traefik` through which the test
#     reaches the event at one host, as users reach it through an ALB on EKS;
#   - local-path-provisioner, running, from its own deploy manifests (the pinned Go module), built here
#     (scripts/tools.sh local-path-provisioner): the StorageClass local-path, volumes in directories
#     under the node's state, for the Kafka nodes' persistent claims;
#   - Strimzi's cluster operator, running, installed into strimzi from its own Helm chart in
#     ../shared/src/strimzi-<version> with operators/values/strimzi.yaml (as on EKS: it watches every
#     namespace), its operator and Kafka images built from the same tree (scripts/tools.sh strimzi)
#     and pushed to the node's registry under the names the chart gives them;
#   - the CRDs of prometheus-operator (no operator: its images cannot be had here) and Strimzi, from
#     ../shared/crds: the event's ServiceMonitors and rules are stored and validated only.
#
#   k8s/node/platform.sh install     build and push the images, apply and install everything, wait for the APIs
#   k8s/node/platform.sh manifests   print KEDA's, metrics-server's and local-path-provisioner's manifests
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/k8s/node"
DIR="${NODE_DIR:-$ROOT/.run/cluster/node}"
BIN="${TOOLS_BIN:-$ROOT/.tools/bin}"
IMAGES_DIR="$ROOT/build/cluster/images"
SHARED="${SHARED_DIR:-$ROOT/../shared}"
REGISTRY=$(sed -n 's/^NODE_IP=\([0-9.]*\).*/\1/p' "$HERE/node.sh"):5000   # the node's registry (node.sh)
KEDA_VERSION=$(sed -n 's/^KEDA_VERSION=\(v[0-9.]*\).*/\1/p' "$ROOT/scripts/tools.sh")
METRICS_SERVER_VERSION=$(sed -n 's/^METRICS_SERVER_VERSION=\(v[0-9.]*\).*/\1/p' "$ROOT/scripts/tools.sh")
LOCAL_PATH_VERSION=$(sed -n 's/^LOCAL_PATH_PROVISIONER_VERSION=\(v[0-9.]*\).*/\1/p' "$ROOT/scripts/tools.sh")
STRIMZI_VERSION=$(sed -n 's/^STRIMZI_VERSION=\([0-9.]*\).*/\1/p' "$ROOT/scripts/tools.sh")
KAFKA_VERSION=$(sed -n 's/^KAFKA_VERSION=\([0-9.]*\).*/\1/p' "$ROOT/scripts/tools.sh")
K6_OPERATOR_VERSION=$(sed -n 's/^K6_OPERATOR_VERSION=\(v[0-9.]*\).*/\1/p' "$ROOT/scripts/tools.sh")
TRAEFIK_VERSION=$(sed -n 's/^TRAEFIK_VERSION=\(v[0-9.]*\).*/\1/p' "$ROOT/scripts/tools.sh")
TAG=${KEDA_VERSION#v}
node() { "$HERE/node.sh" "$@"; }
log() { printf '[%s platform] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# module_dir MODULE@VERSION: that module's directory in the Go module cache (downloaded).
module_dir() {
  (cd "$ROOT/.tools/src" 2>/dev/null || cd /tmp
   GOFLAGS=-mod=mod go mod download -json "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
}

manifests() {
  local work="$DIR/keda"
  rm -rf "$work"; mkdir -p "$work/overlay"
  cp -r "$(module_dir "github.com/kedacore/keda/v2@$KEDA_VERSION")/config" "$work/config"; chmod -R u+w "$work/config"
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
  "$ROOT/scripts/tools.sh" crds   # .tools/crds: prometheus-operator's from its Go module, Strimzi's from ../shared
  for d in prometheus-operator strimzi; do
    node exec "$BIN/kubectl" apply --server-side --force-conflicts -f "$ROOT/.tools/crds/$d" >/dev/null
  done
  node exec "$BIN/kubectl" wait --for=condition=Established crd --all --timeout=300s >/dev/null
  log "CRDs of prometheus-operator and Strimzi established"
  # The cluster's PriorityClasses, as operators/install.sh applies them on EKS: the chart's pods
  # name them by default.
  node exec "$BIN/kubectl" apply --server-side --force-conflicts -f "$ROOT/k8s/priorityclasses.yaml" >/dev/null
}

# The k6-operator's images as its Dockerfiles make them: the controller (/manager, distroless's
# nonroot user) and the starter (curl and a shell, user 65532), under the names its chart and its
# TestRuns' defaults use.
k6_operator() {
  local t0=$SECONDS src="$SHARED/src/k6-operator-$K6_OPERATOR_VERSION"
  [ -x "$BIN/k6-operator" ] || { log "$BIN/k6-operator missing: run scripts/tools.sh k6-operator"; exit 1; }
  [ -d "$src/charts/k6-operator" ] || { log "$src missing (SHARED_DIR)"; exit 1; }
  python3 "$HERE/images.py" build --tag "$REGISTRY/grafana/k6-operator:controller-$K6_OPERATOR_VERSION" \
    --out "$IMAGES_DIR/k6-operator.tar" --entrypoint '["/manager"]' --user 65532:65532 "$BIN/k6-operator=/manager"
  python3 "$HERE/images.py" build --tag "$REGISTRY/grafana/k6-operator:latest-starter" \
    --out "$IMAGES_DIR/k6-operator-starter.tar" --libs --user 65532:65532 /usr/bin/curl=/usr/bin/curl /bin/dash=/bin/sh
  node push "$IMAGES_DIR/k6-operator.tar" "$IMAGES_DIR/k6-operator-starter.tar"
  # EKS's values, less what this node lacks: the system pool and Prometheus.
  node exec "$BIN/helm" upgrade --install k6-operator "$src/charts/k6-operator" -n k6-operator-system \
    --create-namespace -f "$ROOT/operators/values/k6-operator.yaml" --set manager.image.registry="$REGISTRY" \
    --set nodeSelector=null --set metrics.serviceMonitor.enabled=false --wait --timeout 600s >/dev/null
  log "k6-operator $K6_OPERATOR_VERSION running in k6-operator-system ($((SECONDS - t0)) s)"
}

# metrics-server's release manifests, its image renamed to the node's registry.
metrics_server_manifests() {
  local work="$DIR/metrics-server"
  rm -rf "$work"; mkdir -p "$work/overlay"
  cp -r "$(module_dir "sigs.k8s.io/metrics-server@$METRICS_SERVER_VERSION")/manifests" "$work/manifests"
  chmod -R u+w "$work/manifests"
  cat > "$work/overlay/kustomization.yaml" <<EOF
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ../manifests/overlays/release
images:
  - {name: registry.k8s.io/metrics-server/metrics-server, newName: $REGISTRY/metrics-server/metrics-server, newTag: "$METRICS_SERVER_VERSION"}
EOF
  "$BIN/kubectl" kustomize "$work/overlay"
}
metrics_server() {
  local t0=$SECONDS
  [ -x "$BIN/metrics-server" ] || { log "$BIN/metrics-server missing: run scripts/tools.sh metrics-server"; exit 1; }
  # The upstream image is distroless static; its manifest runs it as user 1000.
  python3 "$HERE/images.py" build --tag "$REGISTRY/metrics-server/metrics-server:$METRICS_SERVER_VERSION" \
    --out "$IMAGES_DIR/metrics-server.tar" --entrypoint '["/metrics-server"]' "$BIN/metrics-server=/metrics-server"
  node push "$IMAGES_DIR/metrics-server.tar"
  metrics_server_manifests > "$DIR/metrics-server.yaml"
  node exec "$BIN/kubectl" apply --server-side --force-conflicts -f "$DIR/metrics-server.yaml" >/dev/null
  node exec "$BIN/kubectl" -n kube-system rollout status deployment/metrics-server --timeout=600s >/dev/null
  node exec "$BIN/kubectl" wait --for=condition=Available apiservice/v1beta1.metrics.k8s.io --timeout=600s >/dev/null
  log "metrics-server $METRICS_SERVER_VERSION running, resource metrics API available ($((SECONDS - t0)) s)"
}

# Traefik: a static binary (the upstream image is Alpine-based; it needs the CA bundle only for
# ACME and remote plugins, which the test does not use), run as nonroot.
traefik() {
  local t0=$SECONDS
  [ -x "$BIN/traefik" ] || { log "$BIN/traefik missing: run scripts/tools.sh traefik"; exit 1; }
  python3 "$HERE/images.py" build --tag "$REGISTRY/traefik:$TRAEFIK_VERSION" --out "$IMAGES_DIR/traefik.tar" \
    --entrypoint '["/traefik"]' --user 65532:65532 "$BIN/traefik=/traefik"
  node push "$IMAGES_DIR/traefik.tar"
  sed -e "s#@REGISTRY@#$REGISTRY#g" -e "s#@VERSION@#$TRAEFIK_VERSION#g" "$HERE/manifests/traefik.yaml" > "$DIR/traefik.yaml"
  node exec "$BIN/kubectl" apply --server-side --force-conflicts -f "$DIR/traefik.yaml" >/dev/null
  node exec "$BIN/kubectl" -n traefik rollout status deployment/traefik --timeout=600s >/dev/null
  log "Traefik $TRAEFIK_VERSION running, ingress class traefik ($((SECONDS - t0)) s)"
}

# local-path-provisioner's deploy manifests: its image renamed to the node's registry, the volumes
# under the node's state (node.sh down removes them), its helper pod (mkdir/rm of a volume's
# directory) on a shell image of the node's registry.
local_path_manifests() {
  local work="$DIR/local-path" src
  src=$(module_dir "github.com/rancher/local-path-provisioner@$LOCAL_PATH_VERSION")
  rm -rf "$work"; mkdir -p "$work/overlay"
  # kustomize reads no file outside the kustomization's own directory
  cp "$src/deploy/local-path-storage.yaml" "$work/overlay/"; chmod u+w "$work/overlay/local-path-storage.yaml"
  cat > "$work/overlay/kustomization.yaml" <<YAML
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - local-path-storage.yaml
images:
  - {name: rancher/local-path-provisioner, newName: $REGISTRY/rancher/local-path-provisioner, newTag: "$LOCAL_PATH_VERSION"}
patches:
  - target: {kind: ConfigMap, name: local-path-config}
    patch: |-
      - op: replace
        path: /data/config.json
        value: '{"nodePathMap": [{"node": "DEFAULT_PATH_FOR_NON_LISTED_NODES", "paths": ["$DIR/volumes"]}]}'
      - op: replace
        path: /data/helperPod.yaml
        value: |
          apiVersion: v1
          kind: Pod
          metadata:
            name: helper-pod
          spec:
            priorityClassName: system-node-critical
            containers:
              - name: helper-pod
                image: $REGISTRY/local-path-provisioner/helper:$LOCAL_PATH_VERSION
                imagePullPolicy: IfNotPresent
YAML
  "$BIN/kubectl" kustomize "$work/overlay"
}
local_path() {
  local t0=$SECONDS
  [ -x "$BIN/local-path-provisioner" ] || { log "$BIN/local-path-provisioner missing: run scripts/tools.sh local-path-provisioner"; exit 1; }
  mkdir -p "$DIR/volumes" "$IMAGES_DIR"
  # The upstream image is the binary on a minimal base; its helper is busybox (sh, mkdir, rm).
  python3 "$HERE/images.py" build --tag "$REGISTRY/rancher/local-path-provisioner:$LOCAL_PATH_VERSION" \
    --out "$IMAGES_DIR/local-path-provisioner.tar" "$BIN/local-path-provisioner=/usr/bin/local-path-provisioner"
  python3 "$HERE/images.py" build --tag "$REGISTRY/local-path-provisioner/helper:$LOCAL_PATH_VERSION" \
    --out "$IMAGES_DIR/local-path-helper.tar" --libs /bin/dash=/bin/sh /bin/mkdir=/bin/mkdir /bin/rm=/bin/rm
  node push "$IMAGES_DIR/local-path-provisioner.tar" "$IMAGES_DIR/local-path-helper.tar"
  local_path_manifests > "$DIR/local-path.yaml"
  node exec "$BIN/kubectl" apply --server-side --force-conflicts -f "$DIR/local-path.yaml" >/dev/null
  node exec "$BIN/kubectl" -n local-path-storage rollout status deployment/local-path-provisioner --timeout=600s >/dev/null
  log "local-path-provisioner $LOCAL_PATH_VERSION running, StorageClass local-path ($((SECONDS - t0)) s)"
}

# Strimzi's images as its Dockerfiles lay them out (docker-images/operator, docker-images/kafka-based/
# kafka), on a jlink'ed Java 25 runtime (event-images.sh java-base) instead of UBI's OpenJDK, user
# 1001 in group 0, tini as Strimzi's base image has it, and the shell tools their scripts call:
#   operator  /opt/strimzi/{bin,lib}: the cluster, topic and user operators and Kafka init
#   kafka     /opt/kafka: Kafka's jars (scripts/tools.sh kafka, Maven Central), Strimzi's agents and
#             the libraries its image adds, its scripts, and launchers in bin/ (k8s/node/strimzi/
#             kafka-bin: Maven Central has Kafka's jars, not its distribution's scripts)
# Named as the operator's chart names them under defaultImageRegistry: strimzi/operator:<version>,
# strimzi/kafka:<version>-kafka-<Kafka version>. No Kafka Exporter or JMX exporter binaries: the
# test event turns both off.
STRIMZI_TOOLS=(/usr/bin/bash /usr/bin/env /usr/bin/cat /usr/bin/ls /usr/bin/rm /usr/bin/mkdir /usr/bin/head
  /usr/bin/tr /usr/bin/tee /usr/bin/sed /usr/bin/grep /usr/bin/gawk /usr/bin/readlink /usr/bin/hostname
  /usr/bin/dirname /usr/bin/basename /usr/bin/getent /usr/bin/sleep /usr/bin/curl /usr/bin/netstat /usr/bin/openssl)
strimzi_images() {
  local t0=$SECONDS built="$ROOT/.tools/strimzi-$STRIMZI_VERSION" src="$SHARED/src/strimzi-$STRIMZI_VERSION"
  local kafka_libs="$ROOT/.tools/kafka-$KAFKA_VERSION/libs" work="$DIR/strimzi-images" jre="$IMAGES_DIR/java-base/jre"
  [ -f "$built/.complete" ] || { log "$built missing: run scripts/tools.sh strimzi"; exit 1; }
  [ -d "$kafka_libs" ] || { log "$kafka_libs missing: run scripts/tools.sh kafka"; exit 1; }
  "$HERE/event-images.sh" java-base
  local tools=() t
  for t in "${STRIMZI_TOOLS[@]}"; do tools+=("$t=$t"); done
  tools+=(/usr/bin/gawk=/usr/bin/awk /usr/bin/bash=/bin/bash /usr/bin/bash=/bin/sh /usr/bin/tini-static=/usr/bin/tini
          /usr/lib/ssl/openssl.cnf=/usr/lib/ssl/openssl.cnf)
  local common=(--libs --user 1001:0 --env JAVA_HOME=/opt/java --env PATH=/opt/java/bin:/usr/bin:/bin
                --env "STRIMZI_VERSION=$STRIMZI_VERSION")
  local files=("$jre=/opt/java" "${tools[@]}")
  rm -rf "$work"; mkdir -p "$work/operator-bin" "$work/kafka-libs" "$work/plugins"
  cp "$built/operator/bin/"* "$src/docker-images/operator/scripts/"* "$work/operator-bin/"
  python3 "$HERE/images.py" build --tag "$REGISTRY/strimzi/operator:$STRIMZI_VERSION" --out "$IMAGES_DIR/strimzi-operator.tar" \
    "${common[@]}" --env STRIMZI_HOME=/opt/strimzi --workdir /opt/strimzi \
    "${files[@]}" "$work/operator-bin=/opt/strimzi/bin" "$built/operator/lib=/opt/strimzi/lib"
  # Kafka's jars, then what Strimzi's image adds, less any artifact Kafka already brings (its version wins).
  cp "$kafka_libs/"*.jar "$work/kafka-libs/"
  local jar name
  for jar in "$built/kafka-libs/strimzi/"*.jar "$built/kafka-libs/thirdparty/"*.jar "$built/kafka-libs/agent-provided/"*.jar; do
    name=$(basename "$jar" | sed -E 's/-[0-9][0-9A-Za-z.+_-]*\.jar$//')
    compgen -G "$work/kafka-libs/$name-[0-9]*.jar" >/dev/null || cp "$jar" "$work/kafka-libs/"
  done
  python3 "$HERE/images.py" build --tag "$REGISTRY/strimzi/kafka:$STRIMZI_VERSION-kafka-$KAFKA_VERSION" \
    --out "$IMAGES_DIR/strimzi-kafka.tar" "${common[@]}" --env KAFKA_HOME=/opt/kafka --env "KAFKA_VERSION=$KAFKA_VERSION" \
    --workdir /opt/kafka "${files[@]}" "$work/kafka-libs=/opt/kafka/libs" "$HERE/strimzi/kafka-bin=/opt/kafka/bin" \
    "$src/docker-images/kafka-based/kafka/scripts=/opt/kafka" "$work/plugins=/opt/kafka/plugins"
  node push "$IMAGES_DIR/strimzi-operator.tar" "$IMAGES_DIR/strimzi-kafka.tar"
  log "Strimzi's operator and Kafka images built and pushed ($((SECONDS - t0)) s)"
}

# Strimzi's cluster operator from the tree's own chart (the release operators/versions.env pins), with
# EKS's values less what this node lacks (the system pool), its images from the node's registry. Its
# CRDs are the ones crds() applied, the same files (--skip-crds: Helm 4 would apply them again and
# conflict with kubectl's field manager).
strimzi() {
  local t0=$SECONDS chart="$SHARED/src/strimzi-$STRIMZI_VERSION/packaging/helm-charts/helm3/strimzi-kafka-operator"
  [ -d "$chart" ] || { log "$chart missing (SHARED_DIR)"; exit 1; }
  strimzi_images
  node exec "$BIN/helm" upgrade --install strimzi "$chart" -n strimzi --create-namespace --skip-crds \
    -f "$ROOT/operators/values/strimzi.yaml" --set nodeSelector=null --set defaultImageRegistry="$REGISTRY" \
    --set defaultImageTag="$STRIMZI_VERSION" --wait --timeout 600s >/dev/null
  log "Strimzi $STRIMZI_VERSION cluster operator running in strimzi, watching every namespace ($((SECONDS - t0)) s)"
}

install() {
  local t0=$SECONDS
  mkdir -p "$IMAGES_DIR"
  crds
  metrics_server
  local_path
  strimzi
  traefik
  k6_operator
  for b in keda-operator keda-adapter; do
    [ -x "$BIN/$b" ] || { log "$BIN/$b missing: run scripts/tools.sh keda"; exit 1; }
  done
  # The upstream images run as 65532 (distroless nonroot); the manifests require a non-root user.
  python3 "$HERE/images.py" build --tag "$REGISTRY/kedacore/keda:$TAG" --out "$IMAGES_DIR/keda.tar" \
    --entrypoint '["/keda"]' --user 65532:65532 "$BIN/keda-operator=/keda"
  python3 "$HERE/images.py" build --tag "$REGISTRY/kedacore/keda-metrics-apiserver:$TAG" \
    --out "$IMAGES_DIR/keda-metrics-apiserver.tar" --entrypoint '["/keda-adapter"]' --user 65532:65532 \
    "$BIN/keda-adapter=/keda-adapter"
  node push "$IMAGES_DIR/keda.tar" "$IMAGES_DIR/keda-metrics-apiserver.tar"
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
  manifests) manifests; echo ---; metrics_server_manifests; echo ---; local_path_manifests ;;
  *) sed -n '2,26p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
