#!/usr/bin/env bash
# make test-observability: promtool rule checks and unit tests, dashboard checks, and the metric
# names against the real services after a small load. Installs promtool when missing; pytest runs
# through tests/pytest.sh (pinned dependencies). Starts the local harness (PORT_OFFSET, RUN_DIR)
# only if it is not already up, and stops what it started (tests/lib/harness.sh).
#   OBS_LIVE=0 skips the live part (no services needed). Extra arguments go to pytest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/tests/observability"
cd "$ROOT"
export PORT_OFFSET=${PORT_OFFSET:-0}

scripts/tools.sh promtool
args=()
source tests/lib/harness.sh
trap harness_down EXIT
if [ "${OBS_LIVE:-1}" = 0 ]; then
  args+=(--ignore="$HERE/test_live_metrics.py")
else
  harness_up waiting-room || { echo "(OBS_LIVE=0 skips the live part)" >&2; exit 1; }
fi

tests/pytest.sh "$HERE" "${args[@]}" "$@"
