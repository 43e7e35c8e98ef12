#!/usr/bin/env bash
# make test-faults: the fault scenarios under k6 load (faults.py; FAULTS=short|long|all|NAME,NAME),
# then the abuse suite (pytest: bad input never answered 5xx, no secret in the run's logs; FAULTS_ABUSE=0
# skips it). Results in build/faults/ (report.json, report.md, one folder per scenario);
# docs/reliability.md describes them.
# Faults kill harness processes, so this runs on a harness of its own: FAULTS_PORT_OFFSET (2000) and
# FAULTS_RUN_DIR (.run/infra-faults), never the PORT_OFFSET/RUN_DIR of other suites. The harness is
# started if it is not running and stopped again if it was started here (KEEP=1 leaves it running).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
export PATH="$ROOT/.tools/bin:$JAVA_HOME/bin:$PATH"
export PORT_OFFSET="${FAULTS_PORT_OFFSET:-2000}" RUN_DIR="${FAULTS_RUN_DIR:-$ROOT/.run/infra-faults}"
# The configuration the chart ships: the profile product (local/profiles/product.env) by default.
# FAULTS_PROFILE=slow-host waits longer for a starved host (a longer broker session, DB connect and
# admission waits, each named with its reason in local/profiles/slow-host.env). A harness already
# running keeps its own: every scenario of report.json states the timeouts and the profile's harness
# accommodations in force.
export HARNESS_PROFILE="${FAULTS_PROFILE:-product}"
# Correctness runs of a few hundred users: the profile's heap for a whole spike is not needed.
export API_JAVA_OPTS="${API_JAVA_OPTS:--Xms768m -Xmx768m -XX:+UseParallelGC}"
export CONSUMER_JAVA_OPTS="${CONSUMER_JAVA_OPTS:--Xms384m -Xmx384m -XX:+UseSerialGC}"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
mkdir -p build/faults

source tests/lib/harness.sh
trap harness_down EXIT
harness_up
eval "$(local/infra.sh env)"
export DB_URL DB_USER DB_PASSWORD KAFKA_BOOTSTRAP

source local/verifier/venv.sh
python=$(venv_python verifier local/verifier/requirements.txt)
rc=0
if [ "${FAULTS:-all}" != none ]; then
  PYTHONDONTWRITEBYTECODE=1 "$python" tests/faults/faults.py --only "${FAULTS:-all}" || rc=1
fi
if [ "${FAULTS_ABUSE:-1}" = 1 ]; then
  # the abuse suite addresses the waiting room too (test_bad_input_room.py)
  harness_ready $((8071 + PORT_OFFSET)) || local/services.sh up waiting-room || rc=1
  tests/pytest.sh tests/faults || rc=1
fi
exit $rc
