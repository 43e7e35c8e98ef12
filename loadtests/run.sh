#!/usr/bin/env bash
# Runs one scenario with the project's pinned k6: loadtests/run.sh spike.js [k6 run options...]
# Settings come from the environment (see README.md); SUMMARY_PATH receives the JSON summary;
# K6_DASHBOARD=1 exports k6's web dashboard beside it.
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
# 10,000 VUs hold 4-8 GiB of JavaScript heaps. Go's default GOGC=100 then spends much of k6's CPU in
# garbage collection, and one collection of such a heap costs several CPU-seconds: landing inside a
# spike it takes the cores from the system under test and multiplies its latency. So k6 collects only
# near a memory limit, 70 % of the memory available when it starts (GOGC=off with GOMEMLIMIT); a
# spike of a minute then runs without a collection. Set GOGC or GOMEMLIMIT to override.
if [ -z "${GOGC:-}" ] && [ -z "${GOMEMLIMIT:-}" ]; then
  avail_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo 2>/dev/null || echo 0)
  if [ "${avail_kb:-0}" -gt $((4 * 1024 * 1024)) ]; then
    export GOGC=off GOMEMLIMIT="$((avail_kb * 7 / 10 / 1024))MiB"
  else
    export GOGC=400
  fi
fi
# the trend statistics of the summary are each script's summaryTrendStats (lib/summary.js)
args=(run)
if [ -n "${K6_PROMETHEUS_RW_SERVER_URL:-}" ]; then
  export K6_PROMETHEUS_RW_TREND_STATS="${K6_PROMETHEUS_RW_TREND_STATS:-p(50),p(95),p(99)}"
  args+=(-o experimental-prometheus-rw)
fi
[ -n "${SUMMARY_PATH:-}" ] && mkdir -p "$(dirname "$SUMMARY_PATH")"
# K6_DASHBOARD=1 (make demo, make bench): k6's own web dashboard, exported when the run ends as one
# self-contained HTML file beside the summary (<summary>.dashboard.html; local/report/render.py embeds
# it), with no HTTP port opened (-1: several runs side by side, nothing waits for a browser).
if [ "${K6_DASHBOARD:-0}" = 1 ] && [ -n "${SUMMARY_PATH:-}" ]; then
  export K6_WEB_DASHBOARD=true K6_WEB_DASHBOARD_PORT=-1 K6_WEB_DASHBOARD_PERIOD="${K6_WEB_DASHBOARD_PERIOD:-2s}"
  export K6_WEB_DASHBOARD_EXPORT="${SUMMARY_PATH%.json}.dashboard.html"
fi
exec "$K6" "${args[@]}" "$@" "$script"
