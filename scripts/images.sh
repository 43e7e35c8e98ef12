#!/usr/bin/env bash
# `make images REGISTRY=...`: the three service images built by Jib and pushed to REGISTRY
# (jib:build: no container engine, Jib sends the layers itself), each named
# REGISTRY/coupon-event/<service>:<the chart's appVersion>, which is what the chart pulls with
# global.imageRegistry=REGISTRY. Jib runs as skaffold's jib builder runs it: package jib:build
# -Djib.containerize=<module> on the services' reactor.
#
#   REGISTRY=<registry> scripts/images.sh [service...]     (default: all three)
#
# Optional environment:
#   JIB_FROM=<image>       base image (default: the pom's jib.from.image, eclipse-temurin:25-jre)
#   JIB_CRED_HELPER=<name> Jib's credential helper for REGISTRY, e.g. ecr-login
#                          (docker-credential-ecr-login on PATH; see docs/kubernetes.md)
#   INSECURE=1             the registry speaks plain HTTP (-Djib.allowInsecureRegistries=true)
#   MAVEN_ARGS=<args>      extra Maven arguments (read by Maven itself); not -o: Jib does not push
#                          to a registry in offline mode
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
: "${REGISTRY:?REGISTRY=<registry host[/path]> is required, e.g. 123456789012.dkr.ecr.<region>.amazonaws.com}"
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
APP_VERSION=$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}/\1/p' "$ROOT/Chart.yaml")
log() { printf '[%s images] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

[ $# -gt 0 ] || set -- coupon-api coupon-consumer coupon-waiting-room
for module in "$@"; do
  t0=$SECONDS
  image="${REGISTRY%/}/coupon-event/$module:$APP_VERSION"
  args=(-B -q package com.google.cloud.tools:jib-maven-plugin:build -DskipTests -pl "$module" -am
        -Djib.containerize="io.couponevent:$module" -Djib.to.image="$image")
  [ -n "${JIB_FROM:-}" ] && args+=(-Djib.from.image="$JIB_FROM")
  [ -n "${JIB_CRED_HELPER:-}" ] && args+=(-Djib.to.credHelper="$JIB_CRED_HELPER")
  [ "${INSECURE:-0}" = 1 ] && args+=(-Djib.allowInsecureRegistries=true)
  out=$(cd "$ROOT/services" && ./mvnw "${args[@]}" 2>&1) || {
    printf '%s\n' "$out" | grep -v '^WARNING' >&2; log "jib:build of $module failed"; exit 1; }
  log "pushed $image ($((SECONDS - t0)) s)"
done
