#!/usr/bin/env bash
# Gives the services' AOT caches (local/services.sh, SERVICES_AOT=1) a run to record: when a named
# service has no cache yet, starts the named services in record mode, sends them a small event of
# the kind make demo and make bench send (through the waiting room when it is named: a warm-up of
# queued visits, then a spike that sells out; the direct spike otherwise), and stops them, which
# writes what each recorded. The next `local/services.sh up` assembles the caches and starts from
# them. Nothing happens when every named service already has one (a new build starts over).
# Usage: local/train.sh api consumer [waiting-room]   (local/infra.sh must be up)
# Environment: TRAIN_COUPON_ID (a coupon id of its own: this id and the next), TRAIN_USERS (3000),
# PORT_OFFSET / RUN_DIR (as for infra.sh).
set -euo pipefail
LOG_TAG=train
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$ROOT"
[ $# -gt 0 ] || die "usage: $0 api consumer [waiting-room]"
export SERVICES_AOT=1
local/services.sh trained "$@" && exit 0

t0=$(now_ms)
log "no AOT cache yet for this build of $*: recording a training run"
# A service already running without recording would record nothing: start each afresh.
local/services.sh down "$@"
local/services.sh up "$@"
coupon=${TRAIN_COUPON_ID:-$(( $(date +%s%3N) + 7 ))}
users=${TRAIN_USERS:-3000}
quantity=$(( users * 2 / 3 ))   # sold out before the last users are in
out="$RUN_DIR/train"; mkdir -p "$out"
local/verify.sh register --coupon "$coupon" --quantity "$quantity" --wait-ready 0 >"$out/register.log"
rc=0
if [[ " $* " == *" waiting-room "* ]]; then
  local/verify.sh register --coupon "$((coupon + 1))" --quantity 100000 --wait-ready 0 >>"$out/register.log"
  BASE_URL="http://$HARNESS_HOST:$API_PORT" WR_URL="http://$HARNESS_HOST:$(port 8070)" COUPON_ID="$coupon" \
    USERS="$users" RAMP=3s WR_MODE=on WR_BUDGET=6000 WARMUP=20s WARMUP_RATE=250 WARMUP_COUPON_ID="$((coupon + 1))" \
    USER_PREFIX=train- SUMMARY_PATH="$out/k6-summary.json" \
    loadtests/run.sh waiting-room.js --console-output "$out/journeys.log" >"$out/k6.log" 2>&1 || rc=$?
else
  BASE_URL="http://$HARNESS_HOST:$API_PORT" COUPON_ID="$coupon" VUS="$users" USERS="$users" RAMP=3s \
    USER_PREFIX=train- SUMMARY_PATH="$out/k6-summary.json" loadtests/run.sh spike.js >"$out/k6.log" 2>&1 || rc=$?
fi
# The training judges nothing (the run it prepares does); a k6 that failed outright is worth a line.
[ -s "$out/k6-summary.json" ] || log "the training's k6 run wrote no summary (exit $rc): see $out/k6.log"
local/services.sh down "$@"
log "training run recorded in $(elapsed "$t0")"
