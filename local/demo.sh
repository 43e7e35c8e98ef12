#!/usr/bin/env bash
# make demo: a real first-come-first-served coupon event on this machine, start to finish.
#   1. installs what is missing (pinned apt packages, k6; the Kafka jars come with local/infra.sh)
#   2. builds both services (make build)
#   3. starts Redis Cluster (9 nodes), 3 Kafka brokers, MariaDB, then coupon-api, coupon-consumer and
#      coupon-waiting-room with the chart's configuration: the profile "product"
#      (local/profiles/product.env, HARNESS_PROFILE) lists where the harness still differs from a
#      pod, and why; the summary prints it
#   4. registers a coupon through the admin API (QUANTITY coupons, opening now)
#   5. meets a spike through the waiting room (loadtests/waiting-room.js): USERS distinct users, each
#      with its own JWT, arrive within RAMP (10 s: 1,200 a second, twelve times the zone's budget of
#      6,000 a minute). The coupon's zone is switched on first (WR_MODE=on: the operator knows the
#      event opens now, so admission is paced from the first user instead of letting a whole minute's
#      budget in at once). Each user joins the queue, sees their place and wait, polls as told and
#      issues once with its entry token when admitted; those still waiting at the sell-out learn it
#      at their next poll. The event runs as users meet it: no warm-up before it and no wait for a
#      quiet machine (those are the benchmark's method, make bench).
#      WAITING_ROOM=0 sends the spike straight at the issuance API instead (loadtests/spike.js, VUS
#      virtual users, RAMP 5 s): its admission bound answers 503 with Retry-After beyond what it takes.
#   6. waits for the consumer to drain, verifies the invariants in MariaDB, Redis and Kafka,
#      prints the summary (exit code 1 on any FAIL), with the waiting room's figures and invariants
#      (order, one coupon per admitted user, sold-out propagation, ETA error) and the CPU of each
#      process over the spike's arrivals (k6 shares the machine: is it saturated?). Every failure is
#      judged (an unexpected answer, a user who gave up, a 202 never seen ISSUED, a user answered
#      202 without a row, judged per user from k6's ISSUE_OUTCOME lines, a row without a 202);
#      latency (issuance, join, poll) and the room's ETA error are reported, not judged: they
#      measure this shared machine with k6 on it, which make bench does by its method.
#      LATENCY_JUDGED=1 judges the issuance latency against P95_MS/P99_MS, WR_ETA_P90_MAX the ETA error.
#   7. stops everything it started, unless KEEP=1
# Options (environment): QUANTITY (10000) USERS (12000) RAMP (10s through the room, 5s direct)
# COUPON_ID (time-based) LATENCY_JUDGED=1 KEEP=1 KEEP_DATA=1 BUILD=0 (skip make build) PROMETHEUS=1 (local
# Prometheus + k6 remote write) PORT_OFFSET / RUN_DIR (run beside another harness). Waiting room:
# WAITING_ROOM (1), WR_BUDGET (6000 users a minute), WR_SUB_WINDOW (2s), WR_MODE (on; auto lets a
# minute's budget in before it queues), MAX_WAIT (5m), WR_ETA_P90_MAX (unset: the ETA error p90
# reported; set: judged against it). Direct spike: VUS (10000),
# RETRY_FRACTION (0.05), POLL_INTERVAL (1s, 0 = no status polling), P95_MS (1500) P99_MS (3000).
# SHED_RETRIES (30: a 503 is tried again a second later, up to this many times).
# K6_LOCK (a file: k6 runs under flock on it). HARNESS_PROFILE (product: the chart's configuration).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
export PATH="$ROOT/.tools/bin:$JAVA_HOME/bin:$PATH"
export PORT_OFFSET="${PORT_OFFSET:-0}"

QUANTITY=${QUANTITY:-10000}
VUS=${VUS:-10000}
USERS=${USERS:-$((VUS + VUS / 5))}
COUPON_ID=${COUPON_ID:-$(date +%s%3N)}
WAITING_ROOM=${WAITING_ROOM:-1}
# The zone's budget: what the API takes in a minute as a burst (a burst under it never queues), then
# admitted in sub-window steps once a queue exists.
WR_BUDGET=${WR_BUDGET:-6000}
WR_SUB_WINDOW=${WR_SUB_WINDOW:-2s}
WR_MODE=${WR_MODE:-on}
if [ "$WAITING_ROOM" = 1 ]; then
  VUS=$USERS
  RAMP=${RAMP:-10s}
else
  RAMP=${RAMP:-5s}
fi
OUT_DIR=${OUT_DIR:-$ROOT/build/demo}
KEEP=${KEEP:-0}
BUILD=${BUILD:-1}
PROMETHEUS=${PROMETHEUS:-0}
# The chart's configuration; local/profiles/ names where the harness differs, and why.
export HARNESS_PROFILE=${HARNESS_PROFILE:-product}
# Users as the product's page treats them: a 503 is tried again after its Retry-After for as long
# as the entry token admits (static/page/app.js), not given up after a few tries; the shed answers
# are reported, and a user who still has no final answer is judged.
export SHED_RETRIES=${SHED_RETRIES:-30}
export P95_MS=${P95_MS:-1500} P99_MS=${P99_MS:-3000}
# k6's web dashboard exported beside the summary, for the HTML report (local/report/render.py); 0: none.
export K6_DASHBOARD=${K6_DASHBOARD:-1}

step=0
say() { step=$((step + 1)); printf '\n\033[1m==> [%d] %s\033[0m\n' "$step" "$*"; }

# Sockets: the API holds one per VU, k6 one per VU; raise the open-files limit for all children.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
[ "$(ulimit -n)" -ge $((VUS + 2000)) ] || echo "warning: open files limit $(ulimit -n) is low for $VUS VUs" >&2

started_prometheus=0
cleanup() {
  local rc=$?
  # the run's pictures, a failed run's too, while MariaDB still holds the coupon's rows
  [ "${report:-0}" = 1 ] && { python3 local/report/render.py "$OUT_DIR" >/dev/null || true; }
  if [ "$KEEP" = 1 ]; then
    echo
    echo "KEEP=1: the stack is still running. API http://127.0.0.1:$((8080 + PORT_OFFSET)), coupon $COUPON_ID."
    echo "Stop it with: PORT_OFFSET=$PORT_OFFSET local/services.sh down && PORT_OFFSET=$PORT_OFFSET local/infra.sh down"
  else
    say "stopping the stack (KEEP=1 leaves it running)"
    [ "$started_prometheus" = 1 ] && local/prometheus.sh down || true
    [ -x local/services.sh ] && local/services.sh down || true
    [ -x local/infra.sh ] && local/infra.sh down || true
  fi
  [ -s "$OUT_DIR/report.html" ] && echo "report: $OUT_DIR/report.html (open it in a browser)"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "installing what is missing (pinned apt packages, k6; first time takes minutes)"
scripts/tools.sh apt k6

if [ "$BUILD" = 1 ]; then
  say "building coupon-api and coupon-consumer (make build)"
  make --no-print-directory build
fi

say "starting Redis Cluster, 3 Kafka brokers and MariaDB (local/infra.sh up)"
local/infra.sh up
# A new event each run, as each event is a release with its own stores: rows, records and keys of
# earlier runs would stay otherwise, and the API's reconciler re-counts every coupon's rows every
# 2 s (400 earlier coupons cost 0.4 of the two cores before the spike began). KEEP_DATA=1 keeps them.
[ "${KEEP_DATA:-0}" = 1 ] || local/infra.sh reset
eval "$(local/infra.sh env)"
export DB_URL DB_USER DB_PASSWORD KAFKA_BOOTSTRAP

if [ "$WAITING_ROOM" = 1 ]; then
  say "starting coupon-api, coupon-consumer and coupon-waiting-room (local/services.sh up)"
  # the event's zone settings (the chart's couponWaitingRoom.defaults)
  export WAITING_ROOM_ARGS="${WAITING_ROOM_ARGS:---coupon.waiting-room.defaults.budget-per-minute=$WR_BUDGET --coupon.waiting-room.defaults.sub-window=$WR_SUB_WINDOW}"
  local/services.sh up api consumer waiting-room
else
  say "starting coupon-api and coupon-consumer (local/services.sh up api consumer)"
  local/services.sh up api consumer
fi

if [ "$PROMETHEUS" = 1 ] && [ -x local/prometheus.sh ]; then
  say "starting the local Prometheus (k6 remote-writes its metrics there)"
  local/prometheus.sh up && started_prometheus=1
  export K6_PROMETHEUS_RW_SERVER_URL="${K6_PROMETHEUS_RW_SERVER_URL:-http://127.0.0.1:$((9090 + PORT_OFFSET))/api/v1/write}"
fi

say "registering coupon $COUPON_ID: $QUANTITY coupons, opening now"
local/verify.sh register --coupon "$COUPON_ID" --quantity "$QUANTITY"
mkdir -p "$OUT_DIR"
rm -f "$OUT_DIR/k6-summary.json" "$OUT_DIR/journeys.log" "$OUT_DIR/k6.log" "$OUT_DIR"/*.dashboard.html "$OUT_DIR/report.html"
report=1
# Every 202 is judged per user: k6 names the user of each 202, 503 and unanswered request
# (LOG_OUTCOMES=1, ISSUE_OUTCOME lines), and the verifier reads them (--outcomes).
export LOG_OUTCOMES=1
k6_rc=0
lock=()
[ -n "${K6_LOCK:-}" ] && lock=(flock "$K6_LOCK")
if [ "$WAITING_ROOM" = 1 ]; then
  say "spike through the waiting room: $USERS users arriving within $RAMP, zone $WR_MODE, budget $WR_BUDGET/min in $WR_SUB_WINDOW steps"
  rm -f "$OUT_DIR/spike-cpu.json"
  BASE_URL="http://127.0.0.1:$((8080 + PORT_OFFSET))" WR_URL="http://127.0.0.1:$((8070 + PORT_OFFSET))" \
    COUPON_ID="$COUPON_ID" USERS="$USERS" RAMP="$RAMP" WR_MODE="$WR_MODE" SUMMARY_PATH="$OUT_DIR/k6-summary.json" \
    SPIKE_CPU="$OUT_DIR/spike-cpu.json" "${lock[@]}" local/room-spike.sh --console-output "$OUT_DIR/journeys.log" \
    || k6_rc=$?
else
  say "spike: $USERS users on $VUS VUs arriving within $RAMP, then polling their status until ISSUED"
  BASE_URL="http://127.0.0.1:$((8080 + PORT_OFFSET))" COUPON_ID="$COUPON_ID" VUS="$VUS" USERS="$USERS" RAMP="$RAMP" \
    SUMMARY_PATH="$OUT_DIR/k6-summary.json" \
    "${lock[@]}" loadtests/run.sh spike.js 2> >(tee "$OUT_DIR/k6.log" | grep -v ISSUE_OUTCOME >&2) || k6_rc=$?
fi
[ -s "$OUT_DIR/k6-summary.json" ] || { echo "k6 wrote no summary (exit $k6_rc)" >&2; exit 1; }

say "waiting for the consumer to drain, then verifying the invariants"
latency_flag=--latency-reported
[ "${LATENCY_JUDGED:-0}" = 1 ] && latency_flag=
room_flags=(--outcomes "$OUT_DIR/k6.log")
if [ "$WAITING_ROOM" = 1 ]; then
  # k6's console output, the outcome lines with the journeys, is in journeys.log (--console-output)
  room_flags=(--outcomes "$OUT_DIR/journeys.log" --journeys "$OUT_DIR/journeys.log" --sub-window "$WR_SUB_WINDOW"
    --spike-cpu "$OUT_DIR/spike-cpu.json")
  if [ -n "${WR_ETA_P90_MAX:-}" ]; then room_flags+=(--eta-p90-max "$WR_ETA_P90_MAX"); else room_flags+=(--eta-reported); fi
fi
# the profile in force, in the summary: the chart's configuration, and where the harness differs
python3 local/harness_profile.py json "$HARNESS_PROFILE" > "$OUT_DIR/profile.json"
local/verify.sh verify --k6 "$OUT_DIR/k6-summary.json" --quantity "$QUANTITY" $latency_flag "${room_flags[@]}" \
  --profile "$OUT_DIR/profile.json" --out "$OUT_DIR/summary.json"
echo "summary: $OUT_DIR/summary.json"
