#!/usr/bin/env bash
# A spike through the waiting room as make demo and make bench meet it (loadtests/waiting-room.js):
#   1. the warm-up, a k6 run of its own when WARMUP_COUPON_ID and WARMUP are set: fresh users at
#      WARMUP_RATE a second through whole visits on that coupon, so that the spike meets compiled code
#   2. waits until the machine is quiet: at most QUIET_CORES busy cores for QUIET_HOLD seconds on
#      end, as an event opens on a platform that has been idle for a while, not on one still
#      compiling and collecting after its warm-up (at most QUIET_TIMEOUT seconds, then it goes on
#      and says so)
#   3. the spike: USERS within RAMP, with each process's CPU over the arrivals (RAMP + 2 s) written
#      to SPIKE_CPU when set (local/verify.sh cpu watch: the roles' shares and the machine's)
# Usage: local/room-spike.sh [k6 options of the spike run]   Environment: as waiting-room.js (BASE_URL,
# WR_URL, COUPON_ID, USERS, RAMP, WR_MODE, ...), plus QUIET_CORES (0.5), QUIET_HOLD (3),
# QUIET_TIMEOUT (60), SPIKE_CPU.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

warmup=${WARMUP:-0}
if [ -n "${WARMUP_COUPON_ID:-}" ] && [ "$warmup" != 0 ] && [ "$warmup" != 0s ]; then
  echo "warm-up: $warmup of fresh users at ${WARMUP_RATE:-200}/s through the room on coupon $WARMUP_COUPON_ID"
  # the warm-up alone (USERS=0): its visits feed no metric, but a failed request fails it. Its
  # setup() also sets the spike's zone (WR_MODE, WR_BUDGET), so that the spike's run sends nothing
  # else first: an admin call just before the spike sent the room's compiled request path (filters,
  # valves, JSON) back to the interpreter as the first joins came.
  if ! USERS=0 SUMMARY_PATH='' loadtests/run.sh waiting-room.js --quiet >/dev/null; then
    echo "the warm-up's k6 run failed (run it alone with USERS=0 to see why)" >&2
    exit 1
  fi
  export WR_MODE='' WR_BUDGET=''
  local/verify.sh quiet --max-cores "${QUIET_CORES:-0.5}" --hold "${QUIET_HOLD:-3}" --timeout "${QUIET_TIMEOUT:-60}"
fi

sampler=
if [ -n "${SPIKE_CPU:-}" ]; then
  local/verify.sh cpu watch "$SPIKE_CPU" --for "${RAMP:-10s}" --tail 2s &
  sampler=$!
fi
rc=0
WARMUP=0 WARMUP_COUPON_ID='' loadtests/run.sh waiting-room.js "$@" || rc=$?
[ -z "$sampler" ] || wait "$sampler" || true
exit "$rc"
