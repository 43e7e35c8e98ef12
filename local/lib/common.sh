# Shared helpers of the local harness (sourced by local/infra.sh and local/services.sh).
# shellcheck disable=SC2034  # the settings below are read by the scripts that source this file
# Everything lives under RUN_DIR and listens on HARNESS_HOST (127.0.0.1) at contract port + PORT_OFFSET.
# The single-node cluster (k8s/node) runs the harness in its own network namespace on the node's
# address instead, so that pods reach it as external Kafka, Redis and MySQL.

LOCAL_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$LOCAL_DIR/.." && pwd)"
PORT_OFFSET=${PORT_OFFSET:-0}
HARNESS_HOST=${HARNESS_HOST:-127.0.0.1}
RUN_DIR=${RUN_DIR:-$ROOT/.run/infra}
mkdir -p "$RUN_DIR" "$RUN_DIR/pids" "$RUN_DIR/logs"
RUN_DIR="$(cd "$RUN_DIR" && pwd)"
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
[ -x "$JAVA_HOME/bin/java" ] || JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
JAVA="$JAVA_HOME/bin/java"
JAVA_FEATURE=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$JAVA_HOME/release" 2>/dev/null || echo 17)

# cds_opts ARCHIVE: JVM options for a dynamic class-data-sharing archive (JDK 19+), created on the
# first run and mapped on the next ones; it halves JVM start-up, which dominates on a busy box.
# One archive per process role and RUN_DIR, so no two running JVMs write the same file.
cds_opts() { [ "${JAVA_FEATURE:-17}" -ge 19 ] && echo "-XX:+AutoCreateSharedArchive -XX:SharedArchiveFile=$1-jdk$JAVA_FEATURE.jsa"; true; }

# ---- ports (docs/contract.md) -----------------------------------------------------------------
port() { echo $(( $1 + PORT_OFFSET )); }
REDIS_PORTS=(); for p in 7001 7002 7003 7004 7005 7006 7007 7008 7009; do REDIS_PORTS+=("$(port $p)"); done
# Kafka: brokers 1-3 and dedicated KRaft controllers 4-6, as the chart's two node pools
# (docs/decisions/0050); each runs as process kafka-N.
KAFKA_NODES=(1 2 3)
KAFKA_CONTROLLERS=(4 5 6)
kafka_port() { port $(( 19091 + $1 )); }        # broker N: 19092, 19093, 19094
kafka_controller_port() { port $(( 29088 + $1 )); }  # controller N: 29092, 29093, 29094
MARIADB_PORT=$(port 13306)
API_PORT=$(port 8080);      API_MGMT_PORT=$(port 8081)
CONSUMER_PORT=$(port 8090); CONSUMER_MGMT_PORT=$(port 8091)

redis_nodes() { local IFS=,; local a=(); for p in "${REDIS_PORTS[@]}"; do a+=("$HARNESS_HOST:$p"); done; echo "${a[*]}"; }
kafka_bootstrap() { local IFS=,; local a=(); for n in "${KAFKA_NODES[@]}"; do a+=("$HARNESS_HOST:$(kafka_port "$n")"); done; echo "${a[*]}"; }

# ---- logging and timing -------------------------------------------------------------------------
log() { printf '[%s %s] %s\n' "$(date +%H:%M:%S)" "${LOG_TAG:-local}" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
now_ms() { date +%s%3N; }
elapsed() { local ms=$(( $(now_ms) - $1 )); printf '%d.%01ds' $((ms / 1000)) $(( (ms % 1000) / 100 )); }

# ---- the profile: where the harness differs from a pod of the chart --------------------------------
# One file, local/profiles/$HARNESS_PROFILE.env (local/harness_profile.py reads it): product (the default)
# runs the services with their own defaults, which are the chart's, and lists each harness
# accommodation with its reason; slow-host adds longer waits for a starved host. Its settings are
# exported here unless the environment sets them (the failure-detection timeouts for Kafka and
# Redis, the JVM options and connection caps local/services.sh passes on). `local/infra.sh timeouts`
# prints the timeouts the running nodes use; the summaries print the profile in force.
HARNESS_PROFILE=${HARNESS_PROFILE:-product}
export HARNESS_PROFILE
_profile=$(python3 "$LOCAL_DIR/harness_profile.py" env "$HARNESS_PROFILE") || die "HARNESS_PROFILE=$HARNESS_PROFILE: no such profile in local/profiles/"
eval "$_profile"
unset _profile

# ---- processes, tracked by PID file ---------------------------------------------------------------
pidfile() { echo "$RUN_DIR/pids/$1.pid"; }

# is_running NAME: the PID in the file is alive and is still the process we started (its command
# line mentions RUN_DIR or the marker saved next to it), so a recycled PID is never mistaken or killed.
is_running() {
  local f pid; f=$(pidfile "$1"); [ -f "$f" ] || return 1
  pid=$(cat "$f"); [ -n "$pid" ] && [ -d "/proc/$pid" ] || return 1
  local marker; marker=$(cat "$f.marker" 2>/dev/null || echo "$RUN_DIR")
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$marker"
}
pid_of() { cat "$(pidfile "$1")" 2>/dev/null; }

# start_bg NAME LOGFILE MARKER CMD...: runs CMD in the background, detached from the caller's
# terminal, and records its PID. MARKER is a string of CMD's arguments that identifies it.
start_bg() {
  local name=$1 logfile=$2 marker=$3; shift 3
  mkdir -p "$(dirname "$logfile")"
  # fds 8/9 are the callers' flock descriptors: a server must not hold those locks forever
  nohup "$@" >>"$logfile" 2>&1 </dev/null 8>&- 9>&- &
  echo $! > "$(pidfile "$name")"
  echo "$marker" > "$(pidfile "$name").marker"
}

# stop_pid NAME [SIGNAL] [TIMEOUT_S]: sends SIGNAL (TERM) and waits; SIGKILL after TIMEOUT_S.
stop_pid() {
  local name=$1 sig=${2:-TERM} timeout=${3:-20} pid
  if ! is_running "$name"; then rm -f "$(pidfile "$name")" "$(pidfile "$name").marker"; return 0; fi
  pid=$(pid_of "$name")
  kill "-$sig" "$pid" 2>/dev/null || true
  local deadline=$(( $(date +%s) + timeout ))
  while [ -d "/proc/$pid" ] && [ "$(date +%s)" -lt "$deadline" ]; do
    # a zombie counts as gone
    grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null && break
    sleep 0.2
  done
  if [ -d "/proc/$pid" ] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; then
    log "$name (pid $pid) did not stop within ${timeout}s, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    while [ -d "/proc/$pid" ] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; do sleep 0.1; done
  fi
  rm -f "$(pidfile "$name")" "$(pidfile "$name").marker"
}

rss_mib() { local pid; pid=$(pid_of "$1") || return 0; awk '/^VmRSS/ {printf "%d", $2/1024}' "/proc/$pid/status" 2>/dev/null; }

# ---- waiting --------------------------------------------------------------------------------------
port_open() { (exec 3<>"/dev/tcp/$HARNESS_HOST/$1") 2>/dev/null; }

# wait_until TIMEOUT_S DESCRIPTION CMD...: polls CMD every 0.25 s.
wait_until() {
  local timeout=$1 what=$2; shift 2
  local deadline=$(( $(date +%s) + timeout ))
  until "$@"; do
    [ "$(date +%s)" -lt "$deadline" ] || { log "timed out after ${timeout}s waiting for $what"; return 1; }
    sleep 0.25
  done
}
