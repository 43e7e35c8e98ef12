#!/usr/bin/env bash
# make test-observability: promtool rule checks and unit tests, dashboard checks, and the metric
# names against the real services after a small load. Installs promtool and the pinned Python test
# dependencies (tests/requirements.txt) when missing. Starts the local harness (PORT_OFFSET, RUN_DIR)
# only if it is not already up, and stops what it started (tests/lib/harness.sh).
#   OBS_LIVE=0 skips the live part (no services needed). Extra arguments go to pytest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/tests/observability"
cd "$ROOT"
export PORT_OFFSET=${PORT_OFFSET:-0}
export PYTHONDONTWRITEBYTECODE=1

scripts/tools.sh promtool
export PATH="$ROOT/.tools/bin:$PATH"
source local/verifier/venv.sh
python=$(venv_python tests "$ROOT/tests/requirements.txt")

args=(-p no:cacheprovider -q --rootdir "$HERE" -c /dev/null "$HERE")
source tests/lib/harness.sh
trap harness_down EXIT
if [ "${OBS_LIVE:-1}" = 0 ]; then
  args+=(--ignore="$HERE/test_live_metrics.py")
else
  harness_up || { echo "(OBS_LIVE=0 skips the live part)" >&2; exit 1; }
fi

"$python" -m pytest "${args[@]}" "$@"
