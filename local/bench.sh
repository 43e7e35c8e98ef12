#!/usr/bin/env bash
# make bench: capacity and cost of the whole path on this machine (k6 included), written to
# build/bench/summary.json (numbers only) and build/bench/summary.md (the tables of
# docs/performance.md). Method and targets: docs/performance.md.
#   capacity ladder  open model (local/bench/ladder.py): a warm-up step, then constant-arrival-rate
#                    steps of a fresh user per request on a fresh coupon, growing from LADDER_START
#                    by LADDER_GROWTH until a step fails, then bisected to LADDER_RESOLUTION.
#                    capacity_rps: the highest rate held (>= 97 % accepted, p95 <= 300 ms), and CPU µs
#                    per accepted request of each component (/proc/<pid>/stat over each step)
#   spike            SPIKE_USERS users on as many VUs arriving within RAMP, patient clients: how long
#                    until every user had a final answer, and the invariants
#   sold-out storm   SOLDOUT_USERS users ask for a coupon with no stock left: every answer a 410
#   waiting room     the room is started for this phase only (local/services.sh up waiting-room):
#                    a spike through it (loadtests/waiting-room.js: WR_SPIKE_USERS users within WR_RAMP
#                    on WR_QUANTITY coupons, zone WR_MODE, budget WR_BUDGET/min in WR_SUB_WINDOW steps, after a
#                    WR_WARMUP warm-up): join/poll p95, order inversions, ETA error, sold-out
#                    propagation; then how many waiting users it holds with poll p95 <= 50 ms
#                    (loadtests/waiting-room-capacity.js, WR_CAPACITY_STEPS, every user polling once
#                    per 30 s): wr_max_waiting_users, and per step the room's CPU µs per join and per
#                    poll, Redis's CPU µs per poll and its memory per waiting user (/proc/<pid>/stat
#                    and the masters' INFO used_memory at the bounds of each step's phases,
#                    local/bench/room_capacity.py)
# Options (environment): STEP_SECONDS (25) LADDER_START (300) LADDER_GROWTH (1.5)
# LADDER_RESOLUTION (0.05) LADDER_MAX_STEPS (10) WARMUP_RATE (300) WARMUP_SECONDS (45) MAX_VUS (3000)
# SPIKE_USERS (10000, 0 skips) SOLDOUT_USERS (20000, 0 skips) RAMP (2s) SHED_RETRIES (20) BUILD (0)
# WAITING_ROOM (1; 0 skips its phase) WR_SPIKE_USERS (12000) WR_QUANTITY (10000) WR_RAMP (10s)
# WR_BUDGET (6000) WR_SUB_WINDOW (2s) WR_MODE (on) WR_WARMUP (75s) WR_WARMUP_RATE (250) WR_CAPACITY_STEPS (10000,30000,100000)
# KEEP (0) KEEP_DATA (0: the stores are emptied first, as for make demo) PORT_OFFSET / RUN_DIR, API_JAVA_OPTS / CONSUMER_JAVA_OPTS / JAVA_OPTS (local/services.sh)
# HARNESS_PROFILE (product: the chart's configuration; local/profiles/ names where the harness
# differs, and why: summary.json carries it as `profile`, with the settings in force).
# The ladder's warm-up (WARMUP_RATE, WARMUP_SECONDS) and the room's warm-up and quiet wait
# (local/room-spike.sh) are the benchmark's method: make demo has neither.
# Exit code 1 only when a correctness figure fails; capacity and latency are reported, not judged.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
export PATH="$ROOT/.tools/bin:$JAVA_HOME/bin:$PATH"
export PORT_OFFSET="${PORT_OFFSET:-0}"

SPIKE_USERS=${SPIKE_USERS:-10000}
SOLDOUT_USERS=${SOLDOUT_USERS:-20000}
RAMP=${RAMP:-2s}
# Patient clients: a 503 comes back after Retry-After, so the spike measures how long the system
# takes to answer everyone, not how many users give up.
export SHED_RETRIES=${SHED_RETRIES:-20}
# k6's web dashboard beside each phase's summary, for the HTML report (the ladder's steps go without:
# their k6 CPU is measured); 0: none.
export K6_DASHBOARD=${K6_DASHBOARD:-1}
BUILD=${BUILD:-0}
KEEP=${KEEP:-0}
OUT=${OUT_DIR:-$ROOT/build/bench}
BASE=$(date +%s%3N)
export BASE_URL="http://127.0.0.1:$((8080 + PORT_OFFSET))"
# Latency is the benchmark's figure, reported against its target, never a k6 threshold here.
unset LATENCY_JUDGED

say() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
# What the chart ships, and where the harness differs (local/profiles/): stated in the summary.
export HARNESS_PROFILE=${HARNESS_PROFILE:-product}

cleanup() {
  local rc=$?
  if [ "$KEEP" != 1 ]; then
    say "stopping the stack (KEEP=1 leaves it running)"
    local/services.sh down || true
    local/infra.sh down || true
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

scripts/tools.sh apt k6
[ "$BUILD" = 1 ] || ls services/coupon-api/target/*.jar services/coupon-consumer/target/*.jar >/dev/null 2>&1 || BUILD=1
[ "$BUILD" = 1 ] && make --no-print-directory build
mkdir -p "$OUT"
rm -f "$OUT"/*.json "$OUT"/*.log "$OUT"/summary.md "$OUT"/*.html
# How fast this host is right now (figures of the same host move with it): before anything starts.
local/verify.sh gauge > "$OUT/gauge.json"
say "starting the stack"
local/infra.sh up
# empty stores, as for make demo (local/demo.sh says why); KEEP_DATA=1 keeps earlier runs' data
[ "${KEEP_DATA:-0}" = 1 ] || local/infra.sh reset
eval "$(local/infra.sh env)"
export DB_URL DB_USER DB_PASSWORD KAFKA_BOOTSTRAP
local/services.sh up api consumer
# the profile and the service settings in force: the summary states them, the ladder's ceilings use them
python3 local/harness_profile.py json "$HARNESS_PROFILE" > "$OUT/profile.json"
python3 local/bench/ceilings.py settings > "$OUT/settings.json"
python3 local/harness_profile.py show "$HARNESS_PROFILE"

say "capacity ladder: ${STEP_SECONDS:-25}s steps from ${LADDER_START:-300}/s (warm-up ${WARMUP_RATE:-300}/s first)"
local/bench/ladder.sh --out "$OUT"

# judge NAME QUANTITY [verify options]: the invariants of a spike run, latency reported; every 202
# per user, from the ISSUE_OUTCOME lines of k6's console output in $OUT/NAME-k6.log (LOG_OUTCOMES=1).
judge() {
  local name=$1 quantity=$2; shift 2
  local/verify.sh verify --k6 "$OUT/$name-k6.json" --quantity "$quantity" --latency-reported \
    --outcomes "$OUT/$name-k6.log" --out "$OUT/$name.json" "$@" || true
}
# k6 of a judged run, its console output kept in $OUT/NAME-k6.log and shown without outcome lines
judged_k6() {
  local name=$1; shift
  LOG_OUTCOMES=1 "$@" 2> >(tee "$OUT/$name-k6.log" | grep -v ISSUE_OUTCOME >&2)
}

if [ "$SPIKE_USERS" != 0 ]; then
  spike_coupon=$BASE
  say "spike: $SPIKE_USERS users arriving within $RAMP, coupon $spike_coupon with stock for all of them"
  local/verify.sh register --coupon "$spike_coupon" --quantity $((SPIKE_USERS + 1000)) --wait-ready 0
  COUPON_ID=$spike_coupon VUS=$SPIKE_USERS USERS=$SPIKE_USERS RAMP=$RAMP POLL_INTERVAL=0 USER_PREFIX=spike- \
    SUMMARY_PATH="$OUT/spike-k6.json" judged_k6 spike loadtests/run.sh spike.js || true
  judge spike $((SPIKE_USERS + 1000))
fi

if [ "$SOLDOUT_USERS" != 0 ]; then
  soldout_coupon=$((BASE + 1))
  say "sold-out storm: $SOLDOUT_USERS users, coupon $soldout_coupon has no stock"
  # quantity 0 if the admin API takes it, else 1 (exhausted by the first request).
  local/verify.sh register --coupon "$soldout_coupon" --quantity 0 --wait-ready 0 2>/dev/null \
    && soldout_quantity=0 \
    || { local/verify.sh register --coupon "$soldout_coupon" --quantity 1 --wait-ready 0; soldout_quantity=1; }
  COUPON_ID=$soldout_coupon VUS=$((SOLDOUT_USERS < 10000 ? SOLDOUT_USERS : 10000)) USERS=$SOLDOUT_USERS RAMP=$RAMP \
    POLL_INTERVAL=0 RETRY_FRACTION=0 USER_PREFIX=storm- SUMMARY_PATH="$OUT/soldout-k6.json" \
    judged_k6 soldout loadtests/run.sh spike.js || true
  judge soldout "$soldout_quantity" --no-kafka --drain-timeout 20
fi

if [ "${WAITING_ROOM:-1}" = 1 ]; then
  wr_window=${WR_SUB_WINDOW:-2s}
  wr_quantity=${WR_QUANTITY:-10000}
  say "waiting room: starting it (budget ${WR_BUDGET:-6000}/min in $wr_window steps)"
  # purge-after above the capacity run's 30 s poll interval and its join time: nobody leaves there
  WAITING_ROOM_ARGS="--coupon.waiting-room.defaults.budget-per-minute=${WR_BUDGET:-6000} \
--coupon.waiting-room.defaults.sub-window=$wr_window --coupon.waiting-room.defaults.purge-after=10m" \
    local/services.sh up waiting-room
  wr_coupon=$((BASE + 2)) wr_warm=$((BASE + 3)) wr_capacity=$((BASE + 4))
  local/verify.sh register --coupon "$wr_coupon" --quantity "$wr_quantity" --wait-ready 0
  local/verify.sh register --coupon "$wr_warm" --quantity 100000 --wait-ready 0
  # the benchmark's method (local/room-spike.sh): the zone switched on, a warm-up of queued visits
  # first, slow enough that the room started for this phase is compiled and the machine idle again
  # when the spike comes (local/decisions/0040), then a quiet machine
  say "waiting room: ${WR_SPIKE_USERS:-12000} users within ${WR_RAMP:-10s}, $wr_quantity coupons, zone ${WR_MODE:-on}"
  WR_URL="http://127.0.0.1:$((8070 + PORT_OFFSET))" COUPON_ID=$wr_coupon USERS=${WR_SPIKE_USERS:-12000} \
    RAMP=${WR_RAMP:-10s} WR_MODE=${WR_MODE:-on} WARMUP=${WR_WARMUP:-75s} WARMUP_RATE=${WR_WARMUP_RATE:-250} \
    WARMUP_COUPON_ID=$wr_warm USER_PREFIX=wr- \
    SUMMARY_PATH="$OUT/wr-spike-k6.json" SPIKE_CPU="$OUT/wr-spike-cpu.json" LOG_OUTCOMES=1 \
    local/room-spike.sh --console-output "$OUT/wr-spike-k6.log" || true
  # the console output holds the journeys and the outcome lines
  judge wr-spike "$wr_quantity" --journeys "$OUT/wr-spike-k6.log" --sub-window "$wr_window" --eta-reported \
    --spike-cpu "$OUT/wr-spike-cpu.json"
  say "waiting room: waiting users it holds (${WR_CAPACITY_STEPS:-10000,30000,100000})"
  local/verify.sh register --coupon "$wr_capacity" --quantity 1 --wait-ready 0
  WR_URL="http://127.0.0.1:$((8070 + PORT_OFFSET))" COUPON_ID=$wr_capacity STEPS=${WR_CAPACITY_STEPS:-10000,30000,100000} \
    JOIN_RATE=${WR_JOIN_RATE:-600} HOLD=${WR_HOLD:-30s} USER_PREFIX=wr-wait- \
    python3 local/bench/room_capacity.py --out "$OUT" || true
fi

say "report: $OUT/summary.json, $OUT/summary.md"
python3 local/bench/summary.py "$OUT"
python3 local/report/render.py "$OUT" || true
