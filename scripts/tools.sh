#!/usr/bin/env bash
# Installs the pinned tools the project needs into .tools/ (git-ignored, cached between runs).
# Idempotent: a tool whose pinned version is already present is skipped. Safe to run in parallel
# (one flock per tool). Usage: scripts/tools.sh [all|go|node|node-go|apt|lint|crds|kafka|helm|helm-unittest|k6|etcd|kube-apiserver|kubectl|promtool|browser|k6-operator|metrics-server|kube-router|skaffold|traefik|local-path-provisioner|strimzi]...
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SHARED="${SHARED_DIR:-$ROOT/../shared}"
TOOLS="${TOOLS_DIR:-$ROOT/.tools}"
BIN="$TOOLS/bin"
mkdir -p "$BIN" "$TOOLS/src" "$TOOLS/locks"

# ---- pinned versions -------------------------------------------------------------------------
HELM_VERSION=v4.3.1
HELM_UNITTEST_VERSION=v1.1.2
K6_VERSION=v1.8.1
KUBERNETES_VERSION=v1.36.3       # k8s.io/kubernetes; staging modules at v0.36.3
KUBE_STAGING_VERSION=v0.36.3
ETCD_VERSION=v3.6.16
KEDA_VERSION=v2.20.2             # github.com/kedacore/keda/v2; the chart pinned in operators/versions.env ships this app
COREDNS_VERSION=v1.15.0          # github.com/coredns/coredns, built with the plugins k8s/node/coredns/main.go names
KAFKA_VERSION=4.3.1              # Apache Kafka jars for the local harness (see local/kafka/pom.xml)
K6_OPERATOR_VERSION=v1.6.0       # built from ../shared/src/k6-operator-<version>; its chart 4.6.0 is pinned in operators/versions.env
METRICS_SERVER_VERSION=v0.8.0    # sigs.k8s.io/metrics-server from the Go module proxy
TRAEFIK_VERSION=v3.6.12         # github.com/traefik/traefik/v3 from the Go module proxy (the rig's ingress controller)
KUBE_ROUTER_VERSION=v2.9.0       # built from ../shared/src/kube-router-<version>: its network policy firewall only
PROMETHEUS_OPERATOR_VERSION=v0.93.0  # the CRDs of the kube-prometheus-stack pinned in operators/versions.env
SKAFFOLD_VERSION=v2.24.0         # built from ../shared/src/skaffold-<version> (its module is not on the proxy): skaffold.yaml's dev loop
LOCAL_PATH_PROVISIONER_VERSION=v0.0.30  # github.com/rancher/local-path-provisioner: node-local volumes for the Kafka claims
STRIMZI_VERSION=1.2.0            # built from ../shared/src/strimzi-<version> (Maven, JDK 25): the operators and Kafka agents
# Debian bookworm packages (apt pins are "name=version")
APT_PACKAGES=(
  "redis-server=5:7.0.15-1~deb12u10" "redis-tools=5:7.0.15-1~deb12u10"
  "mariadb-server=1:10.11.19-0+deb12u1" "mariadb-client=1:10.11.19-0+deb12u1"
  "prometheus=2.42.0+ds-5+deb12u1"
)
# The browser test's headless browser (tests/browser, driven by Playwright as an executable, never a
# downloaded one), and a Korean font for the page's Korean texts in its screenshots.
BROWSER_APT_PACKAGES=("chromium=156.0.8078.129-1~deb12u1" "fonts-nanum=20200506-1")
# The single-node cluster's runtime: containerd's CRI, runc (crun refuses this host's hybrid
# cgroups), the CNI bridge plugins, and iptables for kube-proxy and the bridge's masquerading.
NODE_APT_PACKAGES=(
  "containerd=1.6.20~ds1-1+deb12u3" "runc=1.1.5+ds1-1+deb12u1"
  "containernetworking-plugins=1.1.1+ds1-3+b5" "iptables=1.8.9-2" "conntrack=1:1.4.7-1+b2"
  # the registry the node's containerd pulls every image from (the CNCF distribution registry 2.8)
  "docker-registry=2.8.2+ds1-1"
  # kube-router's firewall keeps the NetworkPolicies' peers in ipsets
  "ipset=7.17-1"
  # the init process of Strimzi's images (its base image's tini; k8s/node/platform.sh)
  "tini=0.19.0-1+b3"
)

# The linters `make lint` runs: ShellCheck from Debian (the version scripts/lint.sh checks), the
# Python ones from PyPI (scripts/lint/requirements.txt), the npm ones from their lockfile
# (scripts/lint/package-lock.json).
LINT_APT_PACKAGES=("shellcheck=0.9.0-1")

log() { printf '[tools] %s\n' "$*" >&2; }

# have NAME VERSION: true when .tools/bin/NAME was built at VERSION
have() { [ -x "$BIN/$1" ] && [ "$(cat "$TOOLS/$1.version" 2>/dev/null)" = "$2" ]; }
mark() { echo "$2" > "$TOOLS/$1.version"; }

# Built Go binaries are also kept in a per-user cache keyed by name and version, so a fresh clone on
# the same machine (CI) copies them instead of spending many minutes recompiling.
CACHE="${COUPON_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/coupon-event-tools}"
from_cache() {
  [ -x "$CACHE/$1-$2" ] || return 1
  cp "$CACHE/$1-$2" "$BIN/$1.tmp" && mv "$BIN/$1.tmp" "$BIN/$1" && mark "$1" "$2"
  log "$1 $2 from $CACHE"
}
to_cache() { mkdir -p "$CACHE" && cp "$BIN/$1" "$CACHE/$1-$2.tmp" && mv "$CACHE/$1-$2.tmp" "$CACHE/$1-$2" || true; }

with_lock() { local name=$1; shift; ( flock 9; "$@" ) 9>"$TOOLS/locks/$name.lock"; }

# go_build_wrapped NAME VERSION PKG MODULE[@VERSION] [extra go.mod lines] [extra -ldflags] [main.go]:
# builds PKG inside a throwaway wrapper module so the version is pinned by go.mod, not by @latest.
# With a main.go, PKG is "." and the wrapper module is that program (its own plugin selection).
go_build_wrapped() {
  local name=$1 version=$2 pkg=$3 require=$4 extra=${5:-} ldflags=${6:-} main=${7:-}
  have "$name" "$version" && return 0
  from_cache "$name" "$version" && return 0
  log "building $name $version (first time takes minutes; cached afterwards)"
  local t0=$SECONDS
  local dir="$TOOLS/src/$name"
  rm -rf "$dir"; mkdir -p "$dir"
  cat > "$dir/go.mod" <<GOMOD
module coupon-event.local/tools/$name

go 1.26

require $require
$extra
GOMOD
  cat > "$dir/tools.go" <<GOSRC
//go:build tools

package tools

import _ "$pkg"
GOSRC
  if [ -n "$main" ]; then rm "$dir/tools.go"; cp "$main" "$dir/main.go"; fi
  ( cd "$dir" && GOFLAGS=-mod=mod go mod tidy -e >/dev/null 2>&1 || true
    cd "$dir" && GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -ldflags="-s -w $ldflags" -o "$BIN/$name" "$pkg" )
  mark "$name" "$version"
  to_cache "$name" "$version"
  log "built $name $version in $((SECONDS - t0)) s"
}

tool_helm() {
  go_build_wrapped helm "$HELM_VERSION" helm.sh/helm/v4/cmd/helm "helm.sh/helm/v4 $HELM_VERSION"
}
tool_helm_unittest() {
  # replace directives of a dependency's go.mod do not apply in a wrapper module: repeat its one
  go_build_wrapped helm-unittest "$HELM_UNITTEST_VERSION" github.com/helm-unittest/helm-unittest/cmd/helm-unittest \
    "github.com/helm-unittest/helm-unittest $HELM_UNITTEST_VERSION" \
    "replace github.com/vmware-labs/yaml-jsonpath v0.3.2 => github.com/helm-unittest/yaml-jsonpath v0.4.0"
}
tool_k6() {
  go_build_wrapped k6 "$K6_VERSION" go.k6.io/k6 "go.k6.io/k6 $K6_VERSION"
}
tool_etcd() {
  go_build_wrapped etcd "$ETCD_VERSION" go.etcd.io/etcd/server/v3 "go.etcd.io/etcd/server/v3 $ETCD_VERSION"
}
# module_gomod MODULE@VERSION: the path of that module's go.mod in the module cache (downloaded).
module_gomod() {
  (cd "$TOOLS/src" && GOFLAGS=-mod=mod go mod download -json "$1" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["GoMod"])')
}

# k8s.io/kubernetes replaces its staging modules with ./staging paths; a wrapper module must replace
# each of them with the published release of the same minor. kube-apiserver and kubectl share it.
kube_build() {
  # The version stamps (below) are part of the cache key: unstamped builds are not reused.
  local name=$1 pkg=$2 key="$KUBERNETES_VERSION-stamped"
  have "$name" "$key" && return 0
  from_cache "$name" "$key" && return 0
  local gomod extra="replace (" s
  gomod=$(module_gomod "k8s.io/kubernetes@$KUBERNETES_VERSION")
  for s in $(sed -n 's#^[[:space:]]*k8s.io/\([a-z0-9-]*\) => ./staging/.*#\1#p' "$gomod"); do
    extra+=$'\n'"  k8s.io/$s => k8s.io/$s $KUBE_STAGING_VERSION"
  done
  extra+=$'\n)'
  # Without the version stamps Kubernetes' own build sets, the server reports v0.0.0-master and helm
  # refuses every chart with a kubeVersion constraint.
  local minor=${KUBERNETES_VERSION#v1.} ldflags="" p
  minor=${minor%%.*}
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $p.gitVersion=$KUBERNETES_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
  done
  go_build_wrapped "$name" "$key" "$pkg" "k8s.io/kubernetes $KUBERNETES_VERSION" "$extra" "$ldflags"
}
tool_kube_apiserver() { kube_build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver; }
tool_kubectl() { kube_build kubectl k8s.io/kubernetes/cmd/kubectl; }
# The single-node cluster (k8s/node): the rest of the control plane and the node's own components.
tool_kubelet() { kube_build kubelet k8s.io/kubernetes/cmd/kubelet; }
tool_kube_controller_manager() { kube_build kube-controller-manager k8s.io/kubernetes/cmd/kube-controller-manager; }
tool_kube_scheduler() { kube_build kube-scheduler k8s.io/kubernetes/cmd/kube-scheduler; }
tool_kube_proxy() { kube_build kube-proxy k8s.io/kubernetes/cmd/kube-proxy; }

# module_replaces MODULE@VERSION: the replace block of that module's go.mod (a wrapper module must
# repeat it, since replace directives of a dependency do not apply).
module_replaces() {
  local gomod
  gomod=$(module_gomod "$1")
  awk '/^replace \($/ {r=1; print; next} r && /^\)/ {print; r=0; next} r && !/^[[:space:]]*\/\// {print}
       /^replace [^(]/ {print} /^exclude / {print}' "$gomod"
}
# module_dir MODULE@VERSION: the module's folder in the module cache (downloaded, checksum-verified).
module_dir() {
  (cd "$TOOLS/src" && GOFLAGS=-mod=mod go mod download -json "$1" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
}

# The operators' CRDs the chart's tests install and validate against, one folder per operator in
# .tools/crds: KEDA's and prometheus-operator's from their Go modules at the pinned versions (each
# module zip carries its generated CRDs), Strimzi's and the k6-operator's, which no registry here
# carries, copied from ../shared/crds. Tests read CRDS_DIR (default .tools/crds).
tool_crds() {
  local dir="$TOOLS/crds" d
  local stamp="keda $KEDA_VERSION, prometheus-operator $PROMETHEUS_OPERATOR_VERSION, strimzi and k6-operator from $SHARED"
  [ -d "$dir" ] && [ "$(cat "$dir/.stamp" 2>/dev/null)" = "$stamp" ] && return 0
  for d in strimzi k6-operator; do
    [ -d "$SHARED/crds/$d" ] || {
      log "the $d CRDs come from $SHARED/crds/$d, which is missing: put shared/ beside the checkout, or set SHARED_DIR"
      return 1
    }
  done
  rm -rf "$dir.tmp"; mkdir -p "$dir.tmp"
  crds_from_module keda "github.com/kedacore/keda/v2@$KEDA_VERSION" config/crd/bases
  crds_from_module prometheus-operator "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION" \
    example/prometheus-operator-crd
  for d in strimzi k6-operator; do cp -r "$SHARED/crds/$d" "$dir.tmp/$d"; done
  chmod -R u+w "$dir.tmp"
  echo "$stamp" > "$dir.tmp/.stamp"
  rm -rf "$dir"; mv "$dir.tmp" "$dir"
  log "CRDs in $dir: $stamp"
}
# crds_from_module NAME MODULE@VERSION PATH: the module's PATH/*.yaml and LICENSE into .tools/crds.tmp/NAME
crds_from_module() {
  local name=$1 module=$2 path=$3 src
  src=$(module_dir "$module") || { log "go mod download $module failed"; return 1; }
  mkdir -p "$TOOLS/crds.tmp/$name"
  cp "$src/$path"/*.yaml "$src/LICENSE" "$TOOLS/crds.tmp/$name/"
  printf 'module: %s\npath: %s\n' "$module" "$path" > "$TOOLS/crds.tmp/$name/VERSION"
}

# KEDA's operator and metrics API server, stamped like its own Makefile stamps them.
keda_build() {
  local name=$1 pkg=$2 ldflags="-X github.com/kedacore/keda/v2/version.Version=${KEDA_VERSION#v} -X github.com/kedacore/keda/v2/version.GitCommit=${KEDA_VERSION}"
  have "$name" "$KEDA_VERSION" && return 0
  from_cache "$name" "$KEDA_VERSION" && return 0
  go_build_wrapped "$name" "$KEDA_VERSION" "$pkg" "github.com/kedacore/keda/v2 $KEDA_VERSION" \
    "$(module_replaces "github.com/kedacore/keda/v2@$KEDA_VERSION")" "$ldflags"
}
tool_keda() {
  keda_build keda-operator github.com/kedacore/keda/v2/cmd/operator
  keda_build keda-adapter github.com/kedacore/keda/v2/cmd/adapter
}
tool_coredns() {
  local key
  key="$COREDNS_VERSION-$(sha256sum "$ROOT/k8s/node/coredns/main.go" | cut -c1-12)"
  have coredns "$key" && return 0
  from_cache coredns "$key" && return 0
  go_build_wrapped coredns "$key" . "github.com/coredns/coredns $COREDNS_VERSION" \
    "$(module_replaces "github.com/coredns/coredns@$COREDNS_VERSION")" "" "$ROOT/k8s/node/coredns/main.go"
}
# src_build NAME VERSION SRC PKG [ldflags]: go build PKG in a writable copy of the reference source
# SRC (../shared is read-only; its go.mod pins every dependency, fetched from the Go module proxy).
src_build() {
  local name=$1 version=$2 src=$3 pkg=$4 ldflags=${5:-}
  have "$name" "$version" && return 0
  from_cache "$name" "$version" && return 0
  [ -f "$src/go.mod" ] || { log "$src missing (SHARED_DIR)"; return 1; }
  log "building $name $version from $src (first time takes minutes; cached afterwards)"
  local t0=$SECONDS dir="$TOOLS/src/$name"
  rm -rf "$dir"; cp -r "$src" "$dir"; chmod -R u+w "$dir"
  (cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w $ldflags" -o "$BIN/$name" "$pkg")
  rm -rf "$dir"
  mark "$name" "$version"
  to_cache "$name" "$version"
  log "built $name $version in $((SECONDS - t0)) s"
}
# The k6-operator's controller (the image's /manager), as its Dockerfile.controller builds it.
tool_k6_operator() {
  src_build k6-operator "$K6_OPERATOR_VERSION" "$SHARED/src/k6-operator-$K6_OPERATOR_VERSION" ./cmd/main.go
}
# kube-router, run with its network policy controller (firewall) only: NetworkPolicies enforced.
tool_kube_router() {
  src_build kube-router "$KUBE_ROUTER_VERSION" "$SHARED/src/kube-router-$KUBE_ROUTER_VERSION" ./cmd/kube-router \
    "-X github.com/cloudnativelabs/kube-router/v2/pkg/version.Version=$KUBE_ROUTER_VERSION"
}
# Skaffold (tests/cluster/test_skaffold.py, skaffold.yaml), stamped like its Makefile stamps it.
tool_skaffold() {
  local src="$SHARED/src/skaffold-$SKAFFOLD_VERSION" p=github.com/GoogleContainerTools/skaffold/v2/pkg/skaffold/version
  [ ! -f "$src/VERSION" ] || grep -qx "tag: $SKAFFOLD_VERSION" "$src/VERSION" \
    || { log "$src/VERSION is not at $SKAFFOLD_VERSION"; return 1; }
  src_build skaffold "$SKAFFOLD_VERSION" "$src" ./cmd/skaffold \
    "-X $p.version=$SKAFFOLD_VERSION -X $p.gitCommit=$(sed -n 's/^commit: //p' "$src/VERSION" 2>/dev/null)"
}
# Strimzi's cluster, topic and user operators, its Kafka init and the kafka-agent and tracing-agent jars,
# built from ../shared/src/strimzi-<version> as its VERSION file says (Maven Central only), and the
# libraries Strimzi's Kafka image adds to Kafka's: its third-party list for the Kafka version
# (docker-images/artifacts/kafka-thirdparty-libs; the Kubernetes config provider the brokers' config
# names, the tracing libraries; less OAuth, Cruise Control's reporter, the metrics reporter and the
# quotas plugin, which Maven Central does not serve here) and the kafka-agent's provided libraries
# (Jetty, which Kafka's own distribution brings with Connect). The result is a directory in the cache:
#   operator/{bin,lib}          the four -dist.zip files unzipped, as the operator image's Makefile does
#   kafka-libs/{strimzi,thirdparty,agent-provided}   what the Kafka image adds to Kafka's libs/
# linked as .tools/strimzi-<version>.
STRIMZI_UNSERVED_LIBS=(io.strimzi:kafka-oauth-common io.strimzi:kafka-oauth-server io.strimzi:kafka-oauth-server-plain
  io.strimzi:kafka-oauth-client io.strimzi:kafka-oauth-keycloak-authorizer
  com.linkedin.cruisecontrol:cruise-control-metrics-reporter io.strimzi:server-metrics-reporter io.strimzi:kafka-quotas-plugin)
tool_strimzi() {
  local src="$SHARED/src/strimzi-$STRIMZI_VERSION" out="$CACHE/strimzi-$STRIMZI_VERSION"
  local link="$TOOLS/strimzi-$STRIMZI_VERSION"
  if [ -f "$out/.complete" ]; then ln -sfn "$out" "$link"; return 0; fi
  [ -f "$src/pom.xml" ] || { log "$src missing (SHARED_DIR)"; return 1; }
  log "building Strimzi $STRIMZI_VERSION from $src (first time takes 5+ minutes; cached afterwards)"
  local t0=$SECONDS dir="$CACHE/build/strimzi-$STRIMZI_VERSION" m
  local jdk=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64} mvn=(mvn)
  command -v mvn >/dev/null || mvn=("$ROOT/services/mvnw")
  # a local repository of its own: this build runs beside the services' Maven builds (scripts/test.sh),
  # and it installs Strimzi's own modules, which the services never need
  local repo="-Dmaven.repo.local=$dir.m2"
  # the CRD generator runs `java` from the PATH; javac 23+ runs class-path annotation processors only
  # when asked (-proc:full); lombok 1.18.32 fails on JDK 25; fabric8 7.8.0's openshift client needs
  # packages Maven Central does not serve (7.7.0 resolves)
  local flags=(-B -q -Dmaven.test.skip=true -Dmaven.compiler.fork=true -Dlombok.version=1.18.42
    -Dfabric8.openshift-client.version=7.7.0 -Dfabric8.kubernetes-client.version=7.7.0
    -Dfabric8.kubernetes-model.version=7.7.0 -Dfabric8.zjsonpatch.version=7.7.0
    -Dmaven.javadoc.skip=true -Dspotbugs.skip=true -Djacoco.skip=true "$repo")
  rm -rf "$dir"; mkdir -p "$dir"; cp -r "$src/." "$dir"; chmod -R u+w "$dir"
  # test-scoped dependencies are skipped with the tests, and two of them are not on Maven Central
  python3 "$ROOT/scripts/strimzi-pom.py" notest "$dir" cluster-operator topic-operator user-operator
  python3 "$ROOT/scripts/strimzi-pom.py" nodoc "$dir"
  python3 "$ROOT/scripts/strimzi-pom.py" only-central "$dir/docker-images/artifacts/kafka-thirdparty-libs/4.3.x/pom.xml" \
    "${STRIMZI_UNSERVED_LIBS[@]}"
  # The cluster operator reads a model of each supported Kafka version's broker configuration from
  # its resources ("Configuration model /kafka-<version>-config-model.json was not found" without
  # it): config-model-generator writes them, run per version in a Maven of its own as its
  # build-config-models.sh does, which resolves config-model from the local repository.
  local versions
  versions=$(python3 -c 'import sys, yaml
for v in yaml.safe_load(open(sys.argv[1])):
    if v.get("supported"): print(v["version"], v.get("maven-version") or v["version"])' "$dir/kafka-versions.yaml")
  (cd "$dir" && export JAVA_HOME=$jdk PATH="$jdk/bin:$PATH" JDK_JAVAC_OPTIONS=-proc:full \
    && "${mvn[@]}" "${flags[@]}" -Dmdep.analyze.skip=true install -pl config-model -am \
    && while read -r v mv; do
         (cd config-model-generator && "${mvn[@]}" "${flags[@]}" -Dmdep.analyze.skip=true verify exec:java -Pgenerate-model \
           -Dkafka-metadata-version="$mv" -Dconfig-model-file="../cluster-operator/src/main/resources/kafka-$v-config-model.json")
       done <<< "$versions" \
    && "${mvn[@]}" "${flags[@]}" clean package -pl cluster-operator,topic-operator,user-operator,kafka-init,kafka-agent,tracing-agent -am \
    && "${mvn[@]}" "${flags[@]}" dependency:copy-dependencies -pl kafka-agent -DincludeScope=provided \
         -DoutputDirectory="$dir/agent-provided" \
    && "${mvn[@]}" -B -q "$repo" -f docker-images/artifacts/kafka-thirdparty-libs/4.3.x/pom.xml \
         dependency:copy-dependencies \
         -DoutputDirectory="$dir/thirdparty")
  rm -rf "$out.tmp"; mkdir -p "$out.tmp/operator" "$out.tmp/kafka-libs/strimzi"
  for m in topic-operator user-operator kafka-init cluster-operator; do
    unzip -qo "$dir/docker-images/artifacts/binaries/$m-$STRIMZI_VERSION-dist.zip" -d "$out.tmp/operator"
  done
  cp "$dir/kafka-agent/target/kafka-agent-$STRIMZI_VERSION.jar" \
     "$dir/tracing-agent/target/tracing-agent-$STRIMZI_VERSION.jar" "$out.tmp/kafka-libs/strimzi/"
  mv "$dir/thirdparty" "$dir/agent-provided" "$out.tmp/kafka-libs/"
  touch "$out.tmp/.complete"
  rm -rf "$out"; mv "$out.tmp" "$out"; rm -rf "$dir" "$dir.m2"
  ln -sfn "$out" "$link"
  log "built Strimzi $STRIMZI_VERSION in $((SECONDS - t0)) s"
}
tool_local_path_provisioner() {
  go_build_wrapped local-path-provisioner "$LOCAL_PATH_PROVISIONER_VERSION" github.com/rancher/local-path-provisioner \
    "github.com/rancher/local-path-provisioner $LOCAL_PATH_PROVISIONER_VERSION" \
    "$(module_replaces "github.com/rancher/local-path-provisioner@$LOCAL_PATH_PROVISIONER_VERSION")"
}
tool_metrics_server() {
  local p=k8s.io/client-go/pkg/version   # what metrics-server's Makefile stamps
  have metrics-server "$METRICS_SERVER_VERSION" && return 0
  from_cache metrics-server "$METRICS_SERVER_VERSION" && return 0
  go_build_wrapped metrics-server "$METRICS_SERVER_VERSION" sigs.k8s.io/metrics-server/cmd/metrics-server \
    "sigs.k8s.io/metrics-server $METRICS_SERVER_VERSION" \
    "$(module_replaces "sigs.k8s.io/metrics-server@$METRICS_SERVER_VERSION")" \
    "-X $p.gitVersion=$METRICS_SERVER_VERSION -X $p.gitTreeState=clean"
}
# Traefik v3, the test node's ingress controller (Ingress and Gateway API), stamped as its
# Makefile stamps it.
tool_traefik() {
  local p=github.com/traefik/traefik/v3/pkg/version
  have traefik "$TRAEFIK_VERSION" && return 0
  from_cache traefik "$TRAEFIK_VERSION" && return 0
  go_build_wrapped traefik "$TRAEFIK_VERSION" github.com/traefik/traefik/v3/cmd/traefik \
    "github.com/traefik/traefik/v3 $TRAEFIK_VERSION" \
    "$(module_replaces "github.com/traefik/traefik/v3@$TRAEFIK_VERSION")" \
    "-X $p.Version=$TRAEFIK_VERSION -X $p.Codename=coupon-event-node"
}
tool_apt() { apt_install "${APT_PACKAGES[@]}"; }
tool_node_apt() { apt_install "${NODE_APT_PACKAGES[@]}"; }
tool_browser() { apt_install "${BROWSER_APT_PACKAGES[@]}"; }
apt_install() {
  local missing=() p installed
  for p in "$@"; do
    installed=$(dpkg-query -W -f='${Version}' "${p%%=*}" 2>/dev/null || true)
    [ "$installed" = "${p#*=}" ] || { [ -n "$installed" ] && [ "$(apt_version "$p" 2>/dev/null)" = "$installed" ]; } \
      || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  export DEBIAN_FRONTEND=noninteractive
  # Debian's packages try to start services; there is no init system here and we start our own.
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d
  apt-get update -qq >/dev/null
  local wanted=() v
  for p in "${missing[@]}"; do v=$(apt_version "$p") || return 1; wanted+=("${p%%=*}=$v"); done
  log "apt-get install ${wanted[*]}"
  apt-get install -y -qq --no-install-recommends "${wanted[@]}" >/dev/null
}
# apt_version NAME=VERSION: the version to install. Debian's security archive serves only the newest
# build of a package it has updated (Chromium's builds replace each other every few weeks): a pinned
# version the archive no longer serves gives way to the release's candidate, said in the log, rather
# than failing every fresh machine.
apt_version() {
  local name=${1%%=*} pin=${1#*=} candidate
  if apt-cache madison "$name" | awk -F'|' '{gsub(/ /, "", $2); print $2}' | grep -qxF "$pin"; then
    echo "$pin"; return 0
  fi
  candidate=$(apt-cache policy "$name" | sed -n 's/^ *Candidate: //p')
  if [ -z "$candidate" ] || [ "$candidate" = "(none)" ]; then
    log "$name: neither $pin nor any other version is served"; return 1
  fi
  log "$name $pin is no longer served (a security update replaced it): $candidate instead"
  echo "$candidate"
}
tool_promtool() {
  tool_apt
  # the packaged binary, not whatever `promtool` is on PATH (that may be this very link)
  local real; real=$(dpkg -L prometheus | awk '/\/bin\/promtool$/ && !f {print; f=1}')
  [ -x "$real" ] || { log "promtool not found in the prometheus package"; return 1; }
  ln -sfn "$real" "$BIN/promtool"
}

# The lint tools: ShellCheck (apt), the Python linters in .tools/venv/lint, the npm ones in
# .tools/lint-npm (npm ci from the lockfile, re-run when the lockfile changes).
tool_lint() {
  apt_install "${LINT_APT_PACKAGES[@]}"
  # shellcheck source=local/verifier/venv.sh
  source "$ROOT/local/verifier/venv.sh"
  venv_python lint "$ROOT/scripts/lint/requirements.txt" >/dev/null
  local dir="$TOOLS/lint-npm" stamp
  stamp=$(cat "$ROOT/scripts/lint/package.json" "$ROOT/scripts/lint/package-lock.json" | sha256sum | cut -c1-16)
  [ -x "$dir/node_modules/.bin/prettier" ] && [ "$(cat "$dir/.stamp" 2>/dev/null)" = "$stamp" ] && return 0
  command -v npm >/dev/null || { log "npm not found: install Node.js 20+ (Debian: apt-get install nodejs npm)"; return 1; }
  log "npm ci: $(tr -d '\n ' < "$ROOT/scripts/lint/package.json" | grep -o '"devDependencies":{[^}]*}')"
  rm -rf "$dir"; mkdir -p "$dir"
  cp "$ROOT/scripts/lint/package.json" "$ROOT/scripts/lint/package-lock.json" "$dir/"
  (cd "$dir" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null)
  echo "$stamp" > "$dir/.stamp"
}

# Kafka broker + CLI jars from Maven Central into .tools/kafka-<version>/libs (local/kafka/pom.xml).
tool_kafka() {
  local dir="$TOOLS/kafka-$KAFKA_VERSION" pom="$ROOT/local/kafka/pom.xml" stamp
  grep -q "<kafka.version>$KAFKA_VERSION</kafka.version>" "$pom" || { log "local/kafka/pom.xml is not at Kafka $KAFKA_VERSION"; return 1; }
  stamp="$KAFKA_VERSION $(sha256sum "$pom" | cut -c1-16)"
  [ -d "$dir/libs" ] && [ "$(cat "$dir/libs.version" 2>/dev/null)" = "$stamp" ] && return 0
  log "fetching Kafka $KAFKA_VERSION jars"
  local mvn=(mvn) java_home=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
  command -v mvn >/dev/null || mvn=("$ROOT/services/mvnw")
  rm -rf "$dir/libs.tmp"; mkdir -p "$dir"
  JAVA_HOME=$java_home "${mvn[@]}" -B -q -f "$pom" dependency:copy-dependencies -DincludeScope=runtime \
    -DoutputDirectory="$dir/libs.tmp"
  rm -rf "$dir/libs"; mv "$dir/libs.tmp" "$dir/libs"
  echo "$stamp" > "$dir/libs.version"
  log "fetched Kafka $KAFKA_VERSION: $(ls "$dir/libs" | wc -l) jars, $(du -sm "$dir/libs" | cut -f1) MiB"
}

run_one() {
  case "$1" in
    helm) with_lock helm tool_helm ;;
    helm-unittest) with_lock helm-unittest tool_helm_unittest ;;
    k6) with_lock k6 tool_k6 ;;
    etcd) with_lock etcd tool_etcd ;;
    kube-apiserver) with_lock kube-apiserver tool_kube_apiserver ;;
    kubectl) with_lock kubectl tool_kubectl ;;
    apt) with_lock apt tool_apt ;;
    kafka) with_lock kafka tool_kafka ;;
    promtool) with_lock apt tool_promtool ;;
    kubelet) with_lock kubelet tool_kubelet ;;
    kube-controller-manager) with_lock kube-controller-manager tool_kube_controller_manager ;;
    kube-scheduler) with_lock kube-scheduler tool_kube_scheduler ;;
    kube-proxy) with_lock kube-proxy tool_kube_proxy ;;
    keda) with_lock keda tool_keda ;;
    coredns) with_lock coredns tool_coredns ;;
    k6-operator) with_lock k6-operator tool_k6_operator ;;
    metrics-server) with_lock metrics-server tool_metrics_server ;;
    traefik) with_lock traefik tool_traefik ;;
    kube-router) with_lock kube-router tool_kube_router ;;
    skaffold) with_lock skaffold tool_skaffold ;;
    strimzi) with_lock strimzi tool_strimzi ;;
    local-path-provisioner) with_lock local-path-provisioner tool_local_path_provisioner ;;
    node-apt) with_lock apt tool_node_apt ;;
    browser) with_lock apt tool_browser ;;
    lint) with_lock apt tool_lint ;;
    crds) with_lock crds tool_crds ;;
    node) run_one node-apt; for t in etcd kube-apiserver kubectl helm k6; do run_one "$t"; done; run_one node-go; run_one strimzi ;;
    # the Kubernetes binaries first: they fill the Go build cache with the k8s.io/kubernetes packages
    # the tools stage's kube-apiserver needs (55-114 s with them cached, 490 s without). Traefik
    # next: test-faults-short's api-kill balances its two APIs with it, and a scenario that finds its
    # build still running in this chain's idle time waits for it.
    node-go) for t in kube-controller-manager kube-scheduler kubelet kube-proxy traefik coredns keda k6-operator metrics-server kube-router local-path-provisioner; do run_one "$t"; done ;;
    go) for t in helm helm-unittest k6 etcd kube-apiserver kubectl crds; do run_one "$t"; done ;;
    all)
      # The Go builds are CPU work, the rest mostly downloads and unpacking: side by side.
      local go rest rc=0
      ( run_one go ) & go=$!
      ( run_one apt; run_one lint; run_one browser; run_one promtool; run_one kafka ) & rest=$!
      wait "$go" || rc=$?
      wait "$rest" || rc=$?
      return "$rc" ;;
    *) echo "unknown tool: $1" >&2; exit 2 ;;
  esac
}

[ $# -eq 0 ] && set -- all
for t in "$@"; do run_one "$t"; done
