#!/usr/bin/env bash
# test-observability: promtool rule checks and unit tests, dashboard checks, and the metric names
# against the real services after a small load. Installs promtool and a pinned pytest/PyYAML venv
# when missing. Starts the local harness only if it is not already up, and stops what it started.
#   OBS_LIVE=0 skips the live part (no services needed).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
export PORT_OFFSET=${PORT_OFFSET:-0}
export PYTHONDONTWRITEBYTECODE=1
VENV="$ROOT/.tools/venv"
PYTEST_VERSION=8.3.5
PYYAML_VERSION=6.0.2

scripts/tools.sh promtool
export PATH="$ROOT/.tools/bin:$PATH"
if ! "$VENV/bin/python" -c "import pytest, yaml; assert pytest.__version__ == '$PYTEST_VERSION'" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "pytest==$PYTEST_VERSION" "PyYAML==$PYYAML_VERSION"
fi

args=(-p no:cacheprovider -q monitoring/tests)
started_infra=0 started_services=0
stop_started() {
  [ "$started_services" = 1 ] && local/services.sh down >/dev/null 2>&1 || true
  [ "$started_infra" = 1 ] && local/infra.sh down >/dev/null 2>&1 || true
}
trap stop_started EXIT

ready() { curl -fsS "http://127.0.0.1:$1/actuator/health/readiness" >/dev/null 2>&1; }

if [ "${OBS_LIVE:-1}" = 0 ]; then
  args+=(--ignore=monitoring/tests/test_live_metrics.py)
elif ! { ready $((8081 + PORT_OFFSET)) && ready $((8091 + PORT_OFFSET)); }; then
  ls services/coupon-api/target/*.jar services/coupon-consumer/target/*.jar >/dev/null 2>&1 \
    || { echo "service jars missing: run \`make build\` first (or OBS_LIVE=0)" >&2; exit 1; }
  local/infra.sh status >/dev/null 2>&1 || started_infra=1
  local/infra.sh up
  started_services=1
  local/services.sh up
fi

"$VENV/bin/python" -m pytest "${args[@]}"
