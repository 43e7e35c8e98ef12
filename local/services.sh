#!/usr/bin/env bash
# Runs coupon-api, coupon-consumer and coupon-waiting-room as processes from their built jars against
# the local harness (local/infra.sh must be up). Builds nothing: `make build` first.
# Usage: local/services.sh up|down|status|logs|kill [api|consumer|consumer-N|waiting-room]...
# Without names, `up` starts the three; name them to start fewer (`up api consumer`: the issuance path
# alone). waiting-room (coupon-waiting-room): ports 8070/8071 (+PORT_OFFSET), queue and gate keys in
# the harness's Redis Cluster, the API at API_PORT; WAITING_ROOM_JAVA_OPTS, WAITING_ROOM_ARGS.
# consumer-N (N 2-5) is an extra consumer process on ports 8090+2(N-1) (+1 management), in the same
# group, as KEDA adds pods; api-2 a second API process on 8082/8083, as the chart runs at least two
# pods. `kill` sends SIGKILL by PID (fault tests, tests/faults).
# `lb up|down`: the API's Service for the harness, Traefik on 8088 balancing over api and api-2
# (tests/faults' api-kill; see cmd_lb).
# Environment: PORT_OFFSET, RUN_DIR (as for infra.sh); HARNESS_PROFILE (product: the profile of
# local/profiles/ whose settings apply, each overridable by its own variable: JAVA_OPTS, API_JAVA_OPTS,
# CONSUMER_JAVA_OPTS, WAITING_ROOM_JAVA_OPTS, ...); API_ARGS, CONSUMER_ARGS (extra program arguments);
# any service property as its environment variable (COUPON_ISSUANCE_MAX_IN_FLIGHT=64);
# SERVICES_START_TIMEOUT (s, default 900: a starved 2-core VM took minutes); SERVICES_STOP_TIMEOUT (s, default 40);
# SERVICES_EXTRACT (1: run the extracted layout, 0: the fat jar).
set -euo pipefail
# shellcheck disable=SC2034  # read by log() in lib/common.sh
LOG_TAG=services
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

# The services run with their own defaults, which are the chart's. What differs from a pod (the JVM
# options: JAVA_OPTS, API_JAVA_OPTS, CONSUMER_JAVA_OPTS, WAITING_ROOM_JAVA_OPTS; the connection caps
# API_TOMCAT_MAX_CONNECTIONS, API_TOMCAT_ACCEPT_COUNT, WAITING_ROOM_TOMCAT_MAX_CONNECTIONS; and any
# service setting a profile names, as its environment variable) comes from the profile
# (local/profiles/$HARNESS_PROFILE.env, loaded by local/lib/common.sh), each line with its reason.
# Patient: two Spring Boot JVMs beside Kafka on a busy 2-core box took 4 min to start.
START_TIMEOUT=${SERVICES_START_TIMEOUT:-900}
# the services drain for up to 20 s (spring.lifecycle.timeout-per-shutdown-phase) per phase
STOP_TIMEOUT=${SERVICES_STOP_TIMEOUT:-40}
JWT_SECRET=${COUPON_SECURITY_JWT_SECRET:-local-dev-secret-change-me-0123456789abcdef}
# The waiting room signs entry tokens with it and the API checks them (while a gate key exists).
ENTRY_SECRET=${COUPON_ENTRY_SECRET:-local-entry-secret-change-me-0123456789abcdef}
WAITING_ROOM_PORT=$(port 8070)

# name -> module, ports, extra options
# consumer-N and api-N run their service's jar with its options on ports of their own.
svc_module() { case $1 in waiting-room) echo coupon-waiting-room ;; *) echo "coupon-${1%%-*}" ;; esac; }
svc_extra() { echo $(( ${1##*-} - 1 )); }
svc_port() { case $1 in api) echo "$API_PORT" ;; api-*) echo $((API_PORT + 2 * $(svc_extra "$1"))) ;; waiting-room) echo "$WAITING_ROOM_PORT" ;; consumer) echo "$CONSUMER_PORT" ;; consumer-*) echo $((CONSUMER_PORT + 2 * $(svc_extra "$1"))) ;; esac; }
svc_mgmt_port() { echo $(( $(svc_port "$1") + 1 )); }
svc_java_opts() { case $1 in api*) echo "${API_JAVA_OPTS:-}" ;; waiting-room) echo "${WAITING_ROOM_JAVA_OPTS:-}" ;; consumer*) echo "${CONSUMER_JAVA_OPTS:-}" ;; esac; }
# The profile's connection caps of one service, as Spring Boot's environment variables.
svc_tomcat_env() {
  case $1 in
    api*) echo "${API_TOMCAT_MAX_CONNECTIONS:+SERVER_TOMCAT_MAXCONNECTIONS=$API_TOMCAT_MAX_CONNECTIONS}" \
      "${API_TOMCAT_ACCEPT_COUNT:+SERVER_TOMCAT_ACCEPTCOUNT=$API_TOMCAT_ACCEPT_COUNT}" ;;
    waiting-room) echo "${WAITING_ROOM_TOMCAT_MAX_CONNECTIONS:+SERVER_TOMCAT_MAXCONNECTIONS=$WAITING_ROOM_TOMCAT_MAX_CONNECTIONS}" ;;
  esac
}
svc_args() { case $1 in api*) echo "${API_ARGS:-}" ;; waiting-room) echo "${WAITING_ROOM_ARGS:-}" ;; consumer*) echo "${CONSUMER_ARGS:-}" ;; esac; }
svc_log() { echo "$RUN_DIR/logs/coupon-$1.log"; }

# The executable jar: target/coupon-<name>-<version>.jar, not the -plain (or -sources) one.
svc_jar() {
  local m; m=$(svc_module "$1")
  find "$ROOT/services/$m/target" -maxdepth 1 -name "$m-*.jar" ! -name '*-plain.jar' ! -name '*-sources.jar' \
    ! -name '*-javadoc.jar' ! -name '*-tests.jar' -printf '%T@ %p\n' 2>/dev/null | sort -rn | head -1 | cut -d' ' -f2-
}

# The extracted layout (`java -Djarmode=tools -jar app.jar extract`): a plain jar plus lib/, as the
# jib images run it. The fat jar's nested-jar class loader serialises class loading on one lock per
# nested jar; on a starved 2-core VM request threads queued behind it for minutes (local/decisions/0008).
# Re-extracted when the built jar is newer. SERVICES_EXTRACT=0 runs the fat jar.
svc_app_dir() { echo "$RUN_DIR/app/$(svc_module "$1")"; }
# svc_extracted NAME JAR: true when NAME's extracted layout is that of JAR (not older).
svc_extracted() { local dir; dir=$(svc_app_dir "$1"); [ -f "$dir/.extracted" ] && [ ! "$2" -nt "$dir/.extracted" ]; }
svc_launch_jar() {
  local name=$1 jar=$2 dir
  [ "${SERVICES_EXTRACT:-1}" = 1 ] || { echo "$jar"; return 0; }
  dir=$(svc_app_dir "$name")
  if ! svc_extracted "$name" "$jar"; then
    rm -rf "$dir"; mkdir -p "$(dirname "$dir")"
    "$JAVA" -Djarmode=tools -jar "$jar" extract --destination "$dir" >&2 || die "extracting $jar failed"
    touch "$dir/.extracted"
  fi
  echo "$dir/$(basename "$jar")"
}

readiness() { curl -s --max-time 2 "http://127.0.0.1:$(svc_mgmt_port "$1")/actuator/health/readiness" 2>/dev/null || true; }
is_ready() { readiness "$1" | grep -q '"status":"UP"'; }

svc_start() {
  local name=$1 jar
  if is_running "$name"; then log "$name already running (pid $(pid_of "$name"))"; return 0; fi
  jar=$(svc_jar "$name")
  [ -n "$jar" ] || die "no jar for $(svc_module "$name"): build it with: cd services && ./mvnw -DskipTests package"
  port_open "$(svc_port "$name")" && die "port $(svc_port "$name") is taken by another process"
  jar=$(svc_launch_jar "$name" "$jar")
  local logf; logf=$(svc_log "$name")
  [ -f "$logf" ] && mv -f "$logf" "$logf.1"
  # shellcheck disable=SC2046,SC2086 # option strings are lists of words
  start_bg "$name" "$logf" "-Dlocal.harness.run-dir=$RUN_DIR" \
    env $(infra_env) SERVER_PORT="$(svc_port "$name")" MANAGEMENT_SERVER_PORT="$(svc_mgmt_port "$name")" \
      COUPON_SECURITY_JWT_SECRET="$JWT_SECRET" COUPON_ENTRY_SECRET="$ENTRY_SECRET" \
      COUPON_WAITINGROOM_APIURL="http://$HARNESS_HOST:$API_PORT" $(svc_tomcat_env "$name") \
      "$JAVA" ${JAVA_OPTS:-} $(svc_java_opts "$name") -Dlocal.harness.run-dir="$RUN_DIR" \
      -jar "$jar" $(svc_args "$name")
  log "$name: started pid $(pid_of "$name") from ${jar#"$ROOT"/}, log $logf"
}

svc_wait_ready() {
  local name=$1 t0=$2 deadline=$(( $(date +%s) + START_TIMEOUT ))
  until is_ready "$name"; do
    if ! is_running "$name"; then
      log "$name exited during start; last lines of $(svc_log "$name"):"; tail -40 "$(svc_log "$name")" >&2; return 1
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      log "$name not ready after ${START_TIMEOUT}s: $(readiness "$name")"; tail -20 "$(svc_log "$name")" >&2; return 1
    fi
    sleep 0.5
  done
  log "$name ready on :$(svc_port "$name") (management :$(svc_mgmt_port "$name")) in $(elapsed "$t0")"
}

infra_env() { "$LOCAL_DIR/infra.sh" env | sed 's/^export //'; }

names() { if [ $# -eq 0 ]; then echo api consumer waiting-room; else echo "$@"; fi; }

cmd_up() {
  local t0 n rc=0; t0=$(now_ms)
  for n in $(names "$@"); do svc_start "$n"; done
  for n in $(names "$@"); do svc_wait_ready "$n" "$t0" || rc=1; done
  [ $rc = 0 ] && log "services up in $(elapsed "$t0")"
  return $rc
}

# `down` and `status` without names: the API and the consumer, and the waiting room when it runs.
with_room() {
  if [ $# -gt 0 ]; then echo "$@"; return 0; fi
  echo api consumer
  local n; for n in api-2 waiting-room; do is_running "$n" && echo "$n"; done
  return 0
}

cmd_down() {
  local n
  for n in $(with_room "$@"); do
    is_running "$n" && log "$n: SIGTERM (pid $(pid_of "$n")), SIGKILL after ${STOP_TIMEOUT}s"
    stop_pid "$n" TERM "$STOP_TIMEOUT" &
  done
  wait
}

cmd_status() {
  local n
  for n in $(with_room "$@"); do
    if is_running "$n"; then
      printf '  %-10s pid %-7s %5s MiB  http :%s  management :%s  readiness %s\n' "$n" "$(pid_of "$n")" "$(rss_mib "$n")" \
        "$(svc_port "$n")" "$(svc_mgmt_port "$n")" "$(readiness "$n" | grep -o '"status":"[A-Z_]*"' | head -1 | cut -d'"' -f4)"
    else
      printf '  %-10s down\n' "$n"
    fi
  done
}

ports_closed() { ! port_open "$(svc_port "$1")" && ! port_open "$(svc_mgmt_port "$1")"; }

cmd_kill() {
  local n
  for n in "$@"; do
    is_running "$n" || die "$n is not running"
    log "$n: SIGKILL (pid $(pid_of "$n"))"
    stop_pid "$n" KILL 10
    # A JVM's main thread turns zombie while its other threads still hold the sockets: wait for the
    # ports too, so that `up` can start it again at once.
    wait_until 30 "$n's ports to close" ports_closed "$n"
  done
}

# The API's Service for the harness: what a pod's clients go through, so that one API process can be
# killed while the other answers (tests/faults' api-kill, as the chart runs at least two pods).
# Traefik (scripts/tools.sh traefik, the test cluster's ingress controller) on LB_PORT balances over
# api and api-2 as a Service over ready pods: each instance is in the rotation while its readiness
# group answers UP (checked every 500 ms on its management port), and a request whose connection is
# refused is sent to the other one (the retry middleware: only before anything reached the dead one).
LB_PORT=$(port 8088)
# lb_instance NAME SERVICE: Traefik's service NAME over one harness process SERVICE.
lb_instance() {
  cat <<YAML
    $1:
      loadBalancer:
        servers: [{url: "http://$HARNESS_HOST:$(svc_port "$2")"}]
        healthCheck: {path: /actuator/health/readiness, port: $(svc_mgmt_port "$2"), interval: 500ms, timeout: 400ms}
YAML
}
cmd_lb() {
  local dir="$RUN_DIR/lb"
  case ${1:-} in
    up)
      is_running lb && return 0
      "$ROOT/scripts/tools.sh" traefik >&2
      mkdir -p "$dir"
      {
        cat <<YAML
# generated by local/services.sh lb up
http:
  routers:
    api:
      entryPoints: [api]
      rule: PathPrefix(\`/\`)
      service: api
      middlewares: [retry]
  middlewares:
    retry:
      retry: {attempts: 2}
  services:
    api:
      weighted:
        services: [{name: api-1, weight: 1}, {name: api-2, weight: 1}]
        healthCheck: {}
YAML
        lb_instance api-1 api
        lb_instance api-2 api-2
      } > "$dir/dynamic.yaml"
      start_bg lb "$dir/traefik.log" "$dir/dynamic.yaml" "${TOOLS_BIN:-$ROOT/.tools/bin}/traefik" \
        --entryPoints.api.address="$HARNESS_HOST:$LB_PORT" --providers.file.filename="$dir/dynamic.yaml" \
        --log.level=WARN --global.checkNewVersion=false --global.sendAnonymousUsage=false
      wait_until 30 "traefik on :$LB_PORT" port_open "$LB_PORT"
      log "lb: traefik on :$LB_PORT over api :$(svc_port api) and api-2 :$(svc_port api-2)" ;;
    down) stop_pid lb TERM 10 ;;
    *) die "usage: $0 lb up|down" ;;
  esac
}

cmd_logs() { local n; for n in $(names "$@"); do echo "==> $(svc_log "$n") <=="; tail -n "${LINES_SHOWN:-100}" "$(svc_log "$n")" 2>/dev/null; done; }

cmd=${1:-}; shift || true
[ "$cmd" = lb ] || for n in "$@"; do case $n in api|api-2|consumer|consumer-[2-5]|waiting-room) ;; *) die "unknown service: $n (api, api-2, consumer, consumer-2..5 or waiting-room)" ;; esac; done
case "$cmd" in
  lb) cmd_lb "$@" ;;
  up) cmd_up "$@" ;;
  down) cmd_down "$@" ;;
  status) cmd_status "$@" ;;
  logs) cmd_logs "$@" ;;
  kill) [ $# -gt 0 ] || die "usage: $0 kill api|consumer|consumer-N..."; cmd_kill "$@" ;;
  *) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
