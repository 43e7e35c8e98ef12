#!/usr/bin/env bash
# The images one event runs, built on this machine and imported into the single-node cluster:
#   - the Java base: a jlink'ed Java 25 runtime with the C libraries it links (eclipse-temurin
#     cannot be pulled here);
#   - coupon-api, coupon-consumer and coupon-waiting-room, built by jib exactly as skaffold's jib builder runs it
#     (the same plugin and module settings, `-Djib.containerize=<module>` on the reactor), to a tar
#     on that base instead of a registry;
#   - the helm test's curl (Debian's curl and a shell) and k6 (the pinned k6 built by tools.sh).
# Every image is named under images.coupon-event.local, the chart's global.imageRegistry in
# tests/cluster/values.yaml, so the chart's own image names are used unchanged below that prefix.
#
#   k8s/node/event-images.sh [build|import|all]   (default all)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/k8s/node"
BIN="${TOOLS_BIN:-$ROOT/.tools/bin}"
OUT="$ROOT/build/cluster/images"
REGISTRY=images.coupon-event.local
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
APP_VERSION=$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}/\1/p' "$ROOT/Chart.yaml")
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

# service MODULE: jib's buildTar on the java base, as skaffold's jib builder invokes it.
service() {
  local module=$1
  (cd "$ROOT/services" && ./mvnw -B -q package com.google.cloud.tools:jib-maven-plugin:buildTar \
    -DskipTests -pl "$module" -am -Djib.containerize="io.couponevent:$module" \
    -Djib.from.image="tar://$OUT/java-base.tar" \
    -Djib.to.image="$REGISTRY/coupon-event/$module:$APP_VERSION" \
    -Djib.outputPaths.tar="$OUT/$module.tar" 2>&1 | grep -v '^WARNING' >&2 || true)
  [ -s "$OUT/$module.tar" ] || { log "jib produced no $OUT/$module.tar"; exit 1; }
}

curl_image() {
  python3 "$HERE/images.py" build --tag "$REGISTRY/curlimages/curl:local" --out "$OUT/curl.tar" --libs \
    /usr/bin/curl=/usr/bin/curl /bin/dash=/bin/sh /bin/grep=/bin/grep /bin/cat=/bin/cat /bin/sleep=/bin/sleep
}

k6_image() {
  [ -x "$BIN/k6" ] || { log "$BIN/k6 missing: run scripts/tools.sh k6"; exit 1; }
  python3 "$HERE/images.py" build --tag "$REGISTRY/grafana/k6:$K6_TAG" --out "$OUT/k6.tar" \
    --entrypoint '["k6"]' --user 12345:12345 "$BIN/k6=/usr/bin/k6"
}

build() {
  local t0=$SECONDS
  mkdir -p "$OUT"
  java_base
  rm -f "$OUT/coupon-api.tar" "$OUT/coupon-consumer.tar" "$OUT/coupon-waiting-room.tar"
  service coupon-api
  service coupon-consumer
  service coupon-waiting-room
  curl_image
  k6_image
  log "built in $((SECONDS - t0)) s: $(cd "$OUT" && ls coupon-api.tar coupon-consumer.tar coupon-waiting-room.tar curl.tar k6.tar | tr '\n' ' ')"
}

import() {
  "$HERE/node.sh" import "$OUT/coupon-api.tar" "$OUT/coupon-consumer.tar" "$OUT/coupon-waiting-room.tar" \
    "$OUT/curl.tar" "$OUT/k6.tar"
  log "imported into the node's containerd"
}

case "${1:-all}" in
  build) build ;;
  import) import ;;
  all) build; import ;;
  *) sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
