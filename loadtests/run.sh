#!/usr/bin/env bash
# Runs one scenario with the project's pinned k6: loadtests/run.sh spike.js [k6 run options...]
# Settings come from the environment (see README.md); SUMMARY_PATH receives the JSON summary.
# With K6_PROMETHEUS_RW_SERVER_URL set, metrics also go to Prometheus remote write.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
K6="${K6:-$ROOT/.tools/bin/k6}"
script=${1:?usage: loadtests/run.sh SCRIPT.js [k6 options]}; shift
[ -f "$script" ] || script="$HERE/$script"

# Every VU holds a keep-alive connection: 10,000 VUs need more than the default 1,024 files.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

export K6_NO_USAGE_REPORT=true
# 10,000 VUs hold 4-5 GiB of JavaScript heaps; Go's default GOGC=100 then spends much of k6's CPU in
# garbage collection, CPU taken from the system under test when k6 shares its cores. GOGC=400 trades
# memory for that CPU (about a third of k6's in a spike). Override with GOGC.
export GOGC="${GOGC:-400}"
args=(run --summary-trend-stats "avg,min,med,max,p(50),p(90),p(95),p(99)")
if [ -n "${K6_PROMETHEUS_RW_SERVER_URL:-}" ]; then
  export K6_PROMETHEUS_RW_TREND_STATS="${K6_PROMETHEUS_RW_TREND_STATS:-p(50),p(95),p(99)}"
  args+=(-o experimental-prometheus-rw)
fi
[ -n "${SUMMARY_PATH:-}" ] && mkdir -p "$(dirname "$SUMMARY_PATH")"
exec "$K6" "${args[@]}" "$@" "$script"
