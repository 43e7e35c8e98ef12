#!/usr/bin/env bash
# make test-loadtests: lint every scenario (k6 inspect) and the k6 JWT signer (a known vector), then
# a short run of each scenario against the local stack, each followed by the invariant checks of
# the verifier (local/verify.sh). k6 exits non-zero when a threshold fails; the verifier exits
# non-zero when an invariant fails. Finally the verifier is shown runs that must FAIL (a lost
# acceptance, counted or of one user, a user who gave up) or only report (a missed latency target).
# The stack (PORT_OFFSET, RUN_DIR) is started if it is not running and stopped again if it was
# started here (KEEP=1 leaves it running); results go to OUT_DIR (build/loadtests).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
export PATH="$ROOT/.tools/bin:$JAVA_HOME/bin:$PATH"
export PORT_OFFSET="${PORT_OFFSET:-0}"
export BASE_URL="http://127.0.0.1:$((8080 + PORT_OFFSET))"
# Latency is judged here (k6 thresholds); make demo and make bench only report it.
export P95_MS=${P95_MS:-2000} P99_MS=${P99_MS:-5000} LATENCY_JUDGED=1
OUT=${OUT_DIR:-$ROOT/build/loadtests}
mkdir -p "$OUT"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
rm -f "$OUT"/*.json "$OUT"/*.txt "$OUT"/*.log
failures=() passed=0
pass() { echo "--- PASS $*"; passed=$((passed + 1)); }
fail() { echo "--- FAIL $*"; failures+=("$*"); }

echo "--- lint: k6 inspect"
for s in loadtests/spike.js loadtests/arrival-rate.js loadtests/soak.js; do
  if k6 inspect "$s" >/dev/null; then pass "inspect $s"; else fail "inspect $s"; fi
done
if K6_NO_USAGE_REPORT=true k6 run --quiet tests/loadtests/jwt-vector.js >"$OUT/jwt-vector.txt" 2>&1; then
  pass "loadtests/lib/jwt.js signs the HS256 vector"
else
  fail "loadtests/lib/jwt.js signs the HS256 vector"; cat "$OUT/jwt-vector.txt"
fi

echo "--- stack: local/infra.sh up, local/services.sh up (PORT_OFFSET=$PORT_OFFSET)"
source tests/lib/harness.sh
trap harness_down EXIT
harness_up
eval "$(local/infra.sh env)"
export DB_URL DB_USER DB_PASSWORD KAFKA_BOOTSTRAP
base=$(date +%s%3N)
runs=0

# run NAME SCRIPT QUANTITY [VAR=value...]: register a coupon, run the scenario, verify (per user: k6
# names each 202, 503 and unanswered request's user in $OUT/NAME-k6.log, LOG_OUTCOMES=1).
run() {
  local name=$1 script=$2 quantity=$3; shift 3
  local coupon=$((base + runs)); runs=$((runs + 1))
  echo "--- $name: $script on coupon $coupon (quantity $quantity) $*"
  local/verify.sh register --coupon "$coupon" --quantity "$quantity" || { fail "$name: register"; return; }
  if env COUPON_ID="$coupon" SUMMARY_PATH="$OUT/$name-k6.json" LOG_OUTCOMES=1 "$@" loadtests/run.sh "$script" --quiet \
      2> >(tee "$OUT/$name-k6.log" | grep -v ISSUE_OUTCOME >&2); then
    pass "$name: k6 thresholds"
  else
    fail "$name: k6 thresholds (exit $?)"
  fi
  if [ ! -s "$OUT/$name-k6.json" ]; then fail "$name: no k6 summary"; return; fi
  if local/verify.sh verify --k6 "$OUT/$name-k6.json" --quantity "$quantity" --drain-timeout 60 \
      --outcomes "$OUT/$name-k6.log" --out "$OUT/$name.json"; then
    pass "$name: invariants"
  else
    fail "$name: invariants"
  fi
}

# A freshly started JVM answers its first requests slowly (class loading, JIT, first connections to
# every broker); warm it on a coupon of its own, reported but not judged, as local/bench.sh does.
echo "--- warm-up (not judged)"
local/verify.sh register --coupon "$((base + 9))" --quantity 1000 --wait-ready 0 >/dev/null \
  && COUPON_ID=$((base + 9)) VUS=20 USERS=100 RAMP=5s POLL_INTERVAL=0 RETRY_FRACTION=0 USER_PREFIX=warm- \
       P95_MS=600000 P99_MS=600000 loadtests/run.sh spike.js --quiet | grep -E 'issuance (requests|latency)' || true

# Small numbers: these runs prove the scripts, the contract and the invariants end to end; the load
# this machine carries is measured by make bench (SMOKE_SCALE multiplies the users and rates).
SCALE=${SMOKE_SCALE:-1}
SPIKE_QUANTITY=$((40 * SCALE))   # fewer coupons than users: the spike sells out (410s)
run spike spike.js "$SPIKE_QUANTITY" VUS=$((50 * SCALE)) USERS=$((60 * SCALE)) RAMP=5s RETRY_FRACTION=0.2 POLL_INTERVAL=0.5s POLL_DEADLINE=30s
run arrival-rate arrival-rate.js 10000 STAGES=$((5 * SCALE)):10s,$((10 * SCALE)):10s MAX_VUS=$((50 * SCALE))
run soak soak.js 50 RATE=$((5 * SCALE)) DURATION=20s ISSUE_SHARE=0.5 STATUS_SHARE=0.25

echo "--- a coupon that closes during the run: its 403 CLOSED is the window's answer, not a fault"
closing_coupon=$((base + 7))
if local/verify.sh register --coupon "$closing_coupon" --quantity 1000 --duration 6 --wait-ready 0 >/dev/null \
    && COUPON_ID="$closing_coupon" VUS=30 USERS=30 RAMP=14s POLL_INTERVAL=0 RETRY_FRACTION=0 USER_PREFIX=closing- \
         SUMMARY_PATH="$OUT/closing-k6.json" loadtests/run.sh spike.js > "$OUT/closing.txt" 2>&1 \
    && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["not_open"] > 0 and d["unexpected"] == 0 else 1)' "$OUT/closing-k6.json"; then
  pass "403 CLOSED after closesAt counts as not open, not unexpected"
else
  fail "403 CLOSED after closesAt failed the run or counted as unexpected"; tail -20 "$OUT/closing.txt"
fi
echo "--- a run against a coupon already closed stops in setup() and says why"
if local/verify.sh register --coupon "$closing_coupon" --quantity 1000 --opens-in -20 --duration 1 --wait-ready 0 >/dev/null \
    && ! COUPON_ID="$closing_coupon" VUS=5 USERS=5 RAMP=1s POLL_INTERVAL=0 RETRY_FRACTION=0 USER_PREFIX=closed- \
         loadtests/run.sh spike.js > "$OUT/closed.txt" 2>&1 \
    && grep -q "coupon $closing_coupon closed at" "$OUT/closed.txt"; then
  pass "a closed coupon stops the run in setup() with the reason"
else
  fail "a run against a closed coupon did not stop with the reason"; tail -20 "$OUT/closed.txt"
fi

echo "--- a latency target that is only reported never reads as a failure (make demo, make bench)"
reported_coupon=$((base + 8))
if local/verify.sh register --coupon "$reported_coupon" --quantity 100 --wait-ready 0 >/dev/null \
    && env -u LATENCY_JUDGED COUPON_ID="$reported_coupon" VUS=5 USERS=5 RAMP=1s POLL_INTERVAL=0 RETRY_FRACTION=0 \
         USER_PREFIX=reported- P95_MS=0.001 P99_MS=0.001 SUMMARY_PATH="$OUT/reported-k6.json" \
         loadtests/run.sh spike.js > "$OUT/reported.txt" 2>&1 \
    && grep -q "latency target missed issuance_duration: p(95)<0.001" "$OUT/reported.txt" \
    && ! grep -q "FAIL" "$OUT/reported.txt" \
    && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["thresholds_ok"] and d["thresholds"]["issuance_duration: p(95)<0.001"] is False else 1)' "$OUT/reported-k6.json"; then
  pass "a missed latency target is reported (k6 exit 0, no FAIL), and kept in the summary for the verifier"
else
  fail "a reported latency target failed the k6 run or printed FAIL"; cat "$OUT/reported.txt"
fi

echo "--- verifier self-test: a run claiming more 202s than MariaDB can hold must FAIL"
if [ -s "$OUT/spike-k6.json" ]; then
  # More 202s than the quantity: at least one of them cannot have a row (a 503 may add rows, so
  # one extra 202 would not always show).
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); extra=int(sys.argv[3])+1; d["accepted"]+=extra; d["requesters"]+=extra; d["requests"]+=extra; json.dump(d, open(sys.argv[2], "w"))' \
    "$OUT/spike-k6.json" "$OUT/lost-k6.json" "$SPIKE_QUANTITY"
  if local/verify.sh verify --k6 "$OUT/lost-k6.json" --quantity "$SPIKE_QUANTITY" --drain-timeout 2 \
      --reconcile-timeout 1 --no-kafka > "$OUT/lost.txt" 2>&1; then
    fail "verifier accepted a lost acceptance"; cat "$OUT/lost.txt"
  elif grep -q "FAIL  every 202 persisted" "$OUT/lost.txt"; then
    pass "verifier caught the lost acceptance"
  else
    fail "verifier failed for another reason"; cat "$OUT/lost.txt"
  fi
else
  fail "verifier self-test: no spike summary"
fi

echo "--- verifier self-test: one user's 202 without a row must FAIL per user, however the counts add up"
if [ -s "$OUT/spike-k6.json" ] && [ -s "$OUT/spike-k6.log" ]; then
  # The real run's outcome log plus a 202 to a user who holds no row; k6's counts left as they were.
  { cat "$OUT/spike-k6.log"; echo 'level=info msg="ISSUE_OUTCOME nobody-1 accepted" source=console'; } \
    > "$OUT/lost-user-k6.log"
  if local/verify.sh verify --k6 "$OUT/spike-k6.json" --quantity "$SPIKE_QUANTITY" --drain-timeout 2 \
      --reconcile-timeout 1 --no-kafka --outcomes "$OUT/lost-user-k6.log" > "$OUT/lost-user.txt" 2>&1; then
    fail "verifier accepted a user's lost 202"; cat "$OUT/lost-user.txt"
  elif grep -q "FAIL  every 202 persisted .*1 of them without a row (nobody-1)" "$OUT/lost-user.txt"; then
    pass "verifier caught the user's lost 202"
  else
    fail "verifier failed for another reason"; cat "$OUT/lost-user.txt"
  fi
else
  fail "verifier self-test: no spike summary or outcome log"
fi

echo "--- verifier self-test: --latency-reported (make demo) reports a missed latency target, still judges failures"
if [ -s "$OUT/spike-k6.json" ]; then
  # slow: the same real run with its p95 threshold marked missed; gaveup: also a user who gave up.
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["thresholds"]["issuance_duration: p(95)<1"]=False; d["thresholds_ok"]=False; json.dump(d, open(sys.argv[2], "w")); d["gave_up"]=1; d["thresholds"]["issuance_gave_up: count==0"]=False; json.dump(d, open(sys.argv[3], "w"))' \
    "$OUT/spike-k6.json" "$OUT/slow-k6.json" "$OUT/gaveup-k6.json"
  common=(--quantity "$SPIKE_QUANTITY" --drain-timeout 5 --reconcile-timeout 5 --no-kafka --latency-reported)
  if local/verify.sh verify --k6 "$OUT/slow-k6.json" "${common[@]}" > "$OUT/slow.txt" 2>&1 \
      && grep -q "INFO  latency targets .*missed: issuance_duration: p(95)<1" "$OUT/slow.txt"; then
    pass "a missed latency target is reported, not judged"
  else
    fail "--latency-reported judged latency or did not report it"; cat "$OUT/slow.txt"
  fi
  if ! local/verify.sh verify --k6 "$OUT/gaveup-k6.json" "${common[@]}" > "$OUT/gaveup.txt" 2>&1 \
      && grep -q "FAIL  k6 thresholds .*issuance_gave_up" "$OUT/gaveup.txt"; then
    pass "a user who gave up still fails the run"
  else
    fail "--latency-reported let a failure through"; cat "$OUT/gaveup.txt"
  fi
else
  fail "verifier self-test: no spike summary"
fi

echo
echo "test-loadtests: $passed/$((passed + ${#failures[@]})) checks passed"
if [ ${#failures[@]} -eq 0 ]; then echo "test-loadtests: ALL PASSED"; else printf 'test-loadtests: FAILED: %s\n' "${failures[@]}"; exit 1; fi
