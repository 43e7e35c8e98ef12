#!/usr/bin/env bash
# The images one event runs, built on this machine and pushed to the node's registry, from which the
# node's containerd pulls them:
#   - the Java base: a jlink'ed Java 25 runtime with the C libraries it links (eclipse-temurin
#     cannot be pulled here), a tar Jib reads as its base image;
#   - coupon-api, coupon-consumer and coupon-waiting-room, built by Jib and pushed by
#     `make images REGISTRY=<the node's registry>` (scripts/images.sh: jib:build as skaffold's jib
#     builder runs it), run in the node's network namespace where the registry is;
#   - the helm test's curl (Debian's curl and a shell) and k6 (the pinned k6 built by tools.sh, with
#     the shell tools the k6-operator's initializer and runners call).
# Every image is named under the registry's address, the chart's global.imageRegistry in
# tests/cluster/values.yaml, so the chart's own image names are used unchanged below that prefix.
#
#   k8s/node/event-images.sh [build|push|all]   (default all)
#   k8s/node/event-images.sh java-base         only the Java base (Strimzi's images use its runtime)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/k8s/node"
BIN="${TOOLS_BIN:-$ROOT/.tools/bin}"
OUT="$ROOT/build/cluster/images"
REGISTRY=$(sed -n 's/^NODE_IP=\([0-9.]*\).*/\1/p' "$HERE/node.sh"):5000   # the node's registry (node.sh)
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
K6_TAG=$(sed -n 's/^K6_VERSION=v\([0-9.]*\).*/\1/p' "$ROOT/scripts/tools.sh")
log() { printf '[%s images] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# The modules a Spring Boot service needs (jdk.net: Netty/Lettuce socket options), and the JDK's
# tools for diagnosing it in a pod (jcmd).
JAVA_MODULES=java.se,jdk.unsupported,jdk.net,jdk.charsets,jdk.security.auth,jdk.security.jgss,jdk.management,jdk.management.agent,jdk.crypto.cryptoki,jdk.naming.dns,jdk.zipfs,jdk.jfr,jdk.management.jfr,jdk.localedata,jdk.httpserver,jdk.attach,jdk.jcmd

java_base() {
  local jre="$OUT/java-base/jre" stamp
  stamp="$("$JAVA_HOME/bin/java" -version 2>&1 | head -1) $JAVA_MODULES"
  if [ "$(cat "$OUT/java-base/stamp" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$OUT/java-base"; mkdir -p "$OUT/java-base"
    "$JAVA_HOME/bin/jlink" --add-modules "$JAVA_MODULES" --strip-debug --no-header-files --no-man-pages \
      --compress=zip-6 --output "$jre"
    echo "$stamp" > "$OUT/java-base/stamp"
  fi
  python3 "$HERE/images.py" build --tag "$REGISTRY/java-base:25" --out "$OUT/java-base.tar" --libs \
    --env JAVA_HOME=/opt/java --env PATH=/opt/java/bin:/usr/bin:/bin "$jre=/opt/java"
}

# The services: Maven resolves what Jib needs out here (the node's namespace reaches no Maven
# repository), then `make images` runs in the namespace, finding all of it in the local repository,
# and pushes to the node's registry. Not `mvn -o`: Jib refuses to push to a registry offline.
services() {
  local jib
  jib=$(sed -n 's#.*<jib-maven-plugin.version>\(.*\)</jib-maven-plugin.version>.*#\1#p' "$ROOT/services/pom.xml")
  (cd "$ROOT/services" && ./mvnw -B -q dependency:get -Dartifact="com.google.cloud.tools:jib-maven-plugin:$jib:maven-plugin" \
    >/dev/null && ./mvnw -B -q -DskipTests package -pl coupon-api,coupon-consumer,coupon-waiting-room -am 2>&1 \
    | grep -v '^WARNING' >&2 || true)
  "$HERE/node.sh" exec make --no-print-directory -C "$ROOT" images REGISTRY="$REGISTRY" INSECURE=1 \
    JIB_FROM="tar://$OUT/java-base.tar"
}

curl_image() {
  python3 "$HERE/images.py" build --tag "$REGISTRY/curlimages/curl:local" --out "$OUT/curl.tar" --libs \
    /usr/bin/curl=/usr/bin/curl /bin/dash=/bin/sh /bin/grep=/bin/grep /bin/cat=/bin/cat /bin/sleep=/bin/sleep
}

# The k6-operator runs k6 in its runner image through `sh -c` scripts (the initializer's archive and
# inspect, the runners' check for the script): a shell and the tools they call.
k6_image() {
  [ -x "$BIN/k6" ] || { log "$BIN/k6 missing: run scripts/tools.sh k6"; exit 1; }
  python3 "$HERE/images.py" build --tag "$REGISTRY/grafana/k6:$K6_TAG" --out "$OUT/k6.tar" --libs \
    --entrypoint '["k6"]' --user 12345:12345 "$BIN/k6=/usr/bin/k6" /bin/dash=/bin/sh /bin/mkdir=/bin/mkdir \
    /usr/bin/dirname=/usr/bin/dirname /bin/cat=/bin/cat /bin/grep=/bin/grep /bin/ls=/bin/ls
}

build() {
  local t0=$SECONDS
  mkdir -p "$OUT"
  java_base
  curl_image
  k6_image
  log "built in $((SECONDS - t0)) s: $(cd "$OUT" && ls java-base.tar curl.tar k6.tar | tr '\n' ' ')"
}

push() {
  local t0=$SECONDS
  services
  "$HERE/node.sh" push "$OUT/curl.tar" "$OUT/k6.tar"
  log "pushed to $REGISTRY in $((SECONDS - t0)) s"
}

case "${1:-all}" in
  build) build ;;
  push) push ;;
  all) build; push ;;
  java-base) mkdir -p "$OUT"; java_base ;;
  *) sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
