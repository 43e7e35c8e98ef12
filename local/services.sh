#!/usr/bin/env bash
# Runs coupon-api and coupon-consumer as processes from their built jars against the local harness
# (local/infra.sh must be up). Builds nothing: `cd services && ./mvnw -DskipTests package` first.
# Usage: local/services.sh up|down|status|logs|kill|trained [api|consumer|consumer-N|waiting-room]...
# waiting-room (coupon-waiting-room) starts only when named: ports 8070/8071 (+PORT_OFFSET), queue and
# gate keys in the harness's Redis Cluster, the API at API_PORT; WAITING_ROOM_JAVA_OPTS, WAITING_ROOM_ARGS.
# consumer-N (N 2-5) is an extra consumer process on ports 8090+2(N-1) (+1 management), in the same
# group, as KEDA adds pods; `kill` sends SIGKILL by PID (fault tests, tests/faults).
# Environment: PORT_OFFSET, RUN_DIR (as for infra.sh); JAVA_OPTS (both), API_JAVA_OPTS,
# CONSUMER_JAVA_OPTS (heap and collector, added after it); API_ARGS, CONSUMER_ARGS (extra program arguments);
# SERVICES_START_TIMEOUT (s, default 900: 754 s was seen on a starved 2-core VM); SERVICES_STOP_TIMEOUT (s, default 40);
# SERVICES_EXTRACT (1: run the extracted layout, 0: the fat jar); SERVICES_AOT (1: JDK 25 AOT caches, below);
# LOCAL_DB_CONNECT_TIMEOUT_MS (default 30000); COUPON_ISSUANCE_MAX_IN_FLIGHT (default 64),
# COUPON_ISSUANCE_ADMISSION_WAIT (10s), COUPON_ISSUANCE_RETRY_AFTER (2s).
set -euo pipefail
LOG_TAG=services
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

# Full tiered compilation (C1 + C2): once warm, C2 code cost the API ~40 % less CPU per issuance than
# C1 only, which 0010 had chosen for start-up (local/decisions/0020; JAVA_OPTS with
# -XX:TieredStopAtLevel=1 brings C1 back). A metaspace threshold above what the services load:
# metaspace-triggered full collections took 18 s there. Every page of the heap is
# touched at start (AlwaysPreTouch): on this kind of VM the first touch of a page costs ~7.6 µs
# (2.5 s per GiB), which otherwise landed inside the first young collections of a spike (avg 1.7 s).
# JAVA_OPTS replaces these common options; API_JAVA_OPTS / CONSUMER_JAVA_OPTS replace the per-service
# heap and collector below.
JAVA_OPTS=${JAVA_OPTS:--XX:MetaspaceSize=256m -XX:+AlwaysPreTouch -XX:+ExitOnOutOfMemoryError}
# The API holds one connection and, while it waits for a turn, one parked virtual thread per client:
# a 10,000-VU spike ran a 1 GiB heap out of memory (local/decisions/0011). The parallel collector's two threads
# halve the pauses of the serial one, which the consumer keeps (it holds no client connections).
API_JAVA_OPTS=${API_JAVA_OPTS:--Xms3g -Xmx3g -XX:+UseParallelGC}
CONSUMER_JAVA_OPTS=${CONSUMER_JAVA_OPTS:--Xms1g -Xmx1g -XX:+UseSerialGC}
# The API's admission bound for this box (the services' default, 256, suits a pod of its own).
MAX_IN_FLIGHT=${COUPON_ISSUANCE_MAX_IN_FLIGHT:-64}
# How long a request waits for a turn before 503 (the services' default is 500 ms). When k6 shares
# the cores, every 503 comes back after Retry-After and costs a full request again: a 10,000-VU spike
# with 500 ms ended in a retry storm; with 10 s every user was served (local/decisions/0012).
# A waiting request is a parked virtual thread and costs nothing until its turn.
ADMISSION_WAIT=${COUPON_ISSUANCE_ADMISSION_WAIT:-10s}
RETRY_AFTER=${COUPON_ISSUANCE_RETRY_AFTER:-2s}
# Patient: two Spring Boot JVMs beside Kafka on a busy 2-core box took 4 min to start.
START_TIMEOUT=${SERVICES_START_TIMEOUT:-900}
# The services' own DB connect timeouts (2-5 s) suit a cluster; here a loaded MariaDB answered a
# handshake slower than that and Flyway failed the consumer's start.
# (CONNECTIONTIMEOUT, one word: CONNECTION_TIMEOUT would bind the bean property "connection", whose
# getter opens the pool before the rest of its configuration is bound.)
DB_CONNECT_TIMEOUT_MS=${LOCAL_DB_CONNECT_TIMEOUT_MS:-30000}
# the services drain for up to 20 s (spring.lifecycle.timeout-per-shutdown-phase) per phase
STOP_TIMEOUT=${SERVICES_STOP_TIMEOUT:-40}
JWT_SECRET=${COUPON_SECURITY_JWT_SECRET:-local-dev-secret-change-me-0123456789abcdef}
# The waiting room signs entry tokens with it and the API checks them (while a gate key exists).
ENTRY_SECRET=${COUPON_ENTRY_SECRET:-local-entry-secret-change-me-0123456789abcdef}
# The waiting room holds one keep-alive connection per polling user, little else.
WAITING_ROOM_JAVA_OPTS=${WAITING_ROOM_JAVA_OPTS:--Xms1g -Xmx1g -XX:+UseParallelGC}
WAITING_ROOM_PORT=$(port 8070)

# name -> module, ports, extra options
# consumer-N runs the consumer's jar with the consumer's options on ports of its own.
svc_module() { case $1 in waiting-room) echo coupon-waiting-room ;; *) echo "coupon-${1%%-*}" ;; esac; }
svc_extra() { echo $(( ${1#consumer-} - 1 )); }
svc_port() { case $1 in api) echo "$API_PORT" ;; waiting-room) echo "$WAITING_ROOM_PORT" ;; consumer) echo "$CONSUMER_PORT" ;; consumer-*) echo $((CONSUMER_PORT + 2 * $(svc_extra "$1"))) ;; esac; }
svc_mgmt_port() { echo $(( $(svc_port "$1") + 1 )); }
svc_java_opts() { case $1 in api) echo "${API_JAVA_OPTS:-}" ;; waiting-room) echo "${WAITING_ROOM_JAVA_OPTS:-}" ;; consumer*) echo "${CONSUMER_JAVA_OPTS:-}" ;; esac; }
svc_args() { case $1 in api) echo "${API_ARGS:-}" ;; waiting-room) echo "${WAITING_ROOM_ARGS:-}" ;; consumer*) echo "${CONSUMER_ARGS:-}" ;; esac; }
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

# SERVICES_AOT=1 (make demo, make bench): each service starts from an AOT cache (JEP 483/515) of an
# earlier run of the same build on this JDK: its classes loaded and linked, and the method profiles of
# that run's workload, so the JIT compiles the hot paths at once instead of after thousands of calls.
# A service without a cache records its run (AOTMode=record; the configuration is written when it
# stops) and the next start assembles the cache from it. local/train.sh gives a first run that
# workload. The files live beside the extracted jar, so a new build starts over (local/decisions/0037).
svc_aot_on() { [ "${SERVICES_AOT:-0}" = 1 ] && [ "${SERVICES_EXTRACT:-1}" = 1 ] && [ "${JAVA_FEATURE:-17}" -ge 25 ]; }
svc_aot_base() { echo "$(svc_app_dir "$1")/$1-jdk${JAVA_RUNTIME:-unknown}"; }
# svc_aot_opts NAME JAR: the AOT options for this start (assembling the cache first when a recorded
# configuration is waiting).
svc_aot_opts() {
  local name=$1 jar=$2 base
  svc_aot_on || return 0
  base=$(svc_aot_base "$name")
  if [ ! -s "$base.aot" ] && [ -s "$base.aotconf" ]; then
    log "$name: assembling its AOT cache from the recorded run"
    if "$JAVA" -XX:AOTMode=create -XX:AOTConfiguration="$base.aotconf" -XX:AOTCache="$base.aot.tmp" -Xlog:aot=error \
        -jar "$jar" >"$base.create.log" 2>&1; then
      mv "$base.aot.tmp" "$base.aot"
    else
      log "$name: assembling the AOT cache failed (see $base.create.log); recording again"
    fi
    rm -f "$base.aotconf" "$base.aot.tmp"
  fi
  if [ -s "$base.aot" ]; then echo "-XX:AOTCache=$base.aot"
  else echo "-XX:AOTMode=record -XX:AOTConfiguration=$base.aotconf"; fi
}
# svc_aot_ready NAME: true when NAME has an AOT cache (or a recorded run to assemble one from) for
# the jar built last (a newer jar is extracted afresh at start, without them).
svc_aot_ready() {
  local jar base; jar=$(svc_jar "$1"); base=$(svc_aot_base "$1")
  [ -n "$jar" ] && svc_extracted "$1" "$jar" && { [ -s "$base.aot" ] || [ -s "$base.aotconf" ]; }
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
      COUPON_SECURITY_JWT_SECRET="$JWT_SECRET" SPRING_DATASOURCE_HIKARI_CONNECTIONTIMEOUT="$DB_CONNECT_TIMEOUT_MS" \
      COUPON_ISSUANCE_MAX_IN_FLIGHT="$MAX_IN_FLIGHT" COUPON_ISSUANCE_ADMISSIONWAIT="$ADMISSION_WAIT" \
      COUPON_ISSUANCE_RETRYAFTER="$RETRY_AFTER" COUPON_ENTRY_SECRET="$ENTRY_SECRET" \
      COUPON_WAITINGROOM_APIURL="http://$HARNESS_HOST:$API_PORT" \
      "$JAVA" $JAVA_OPTS $(svc_java_opts "$name") $(svc_aot_opts "$name" "$jar") -Dlocal.harness.run-dir="$RUN_DIR" \
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

names() { if [ $# -eq 0 ]; then echo api consumer; else echo "$@"; fi; }

cmd_up() {
  local t0 n rc=0; t0=$(now_ms)
  for n in $(names "$@"); do svc_start "$n"; done
  for n in $(names "$@"); do svc_wait_ready "$n" "$t0" || rc=1; done
  [ $rc = 0 ] && log "services up in $(elapsed "$t0")"
  return $rc
}

# `down` and `status` without names include the waiting room when it runs.
with_room() { names "$@"; [ $# -eq 0 ] && is_running waiting-room && echo waiting-room; return 0; }

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

# trained NAMES: exit 0 when every named service has its AOT cache or a recorded run for it, or
# when no cache would be used (SERVICES_EXTRACT=0, a JDK before 25): nothing to train then.
cmd_trained() { local n; svc_aot_on || return 0; for n in $(names "$@"); do svc_aot_ready "$n" || return 1; done; }

cmd_logs() { local n; for n in $(names "$@"); do echo "==> $(svc_log "$n") <=="; tail -n "${LINES_SHOWN:-100}" "$(svc_log "$n")" 2>/dev/null; done; }

cmd=${1:-}; shift || true
for n in "$@"; do case $n in api|consumer|consumer-[2-5]|waiting-room) ;; *) die "unknown service: $n (api, consumer, consumer-2..5 or waiting-room)" ;; esac; done
case "$cmd" in
  up) cmd_up "$@" ;;
  down) cmd_down "$@" ;;
  status) cmd_status "$@" ;;
  logs) cmd_logs "$@" ;;
  trained) cmd_trained "$@" ;;
  kill) [ $# -gt 0 ] || die "usage: $0 kill api|consumer|consumer-N..."; cmd_kill "$@" ;;
  *) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
