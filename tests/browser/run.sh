#!/usr/bin/env bash
# make test-browser: the waiting-room page in Debian's chromium (Playwright, tests/browser) against the
# local stack (harness, API, consumer, waiting room with 2 s admission steps), reached through one
# host (local/front.py) as behind an ingress; k6 keeps a queue in front of the browser user.
# The stack is started unless it runs, and stopped again if started here (KEEP=1 leaves it).
# Screenshots and k6's output: build/browser/. Extra arguments go to pytest (e.g. -k sold).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# harness_up / harness_down, and the tools and the JDK on PATH
source tests/lib/harness.sh
# admission steps of 2 s (the default 6 s would make the browser user wait three times as long)
export WAITING_ROOM_ARGS="--coupon.waiting-room.defaults.sub-window=2s ${WAITING_ROOM_ARGS:-}"
# The browser test's stack is small: the default 3 GiB API heap is for spikes of thousands.
export API_JAVA_OPTS="${API_JAVA_OPTS:--Xms512m -Xmx512m -XX:+UseParallelGC}"
export WAITING_ROOM_JAVA_OPTS="${WAITING_ROOM_JAVA_OPTS:--Xms256m -Xmx256m -XX:+UseParallelGC}"
export CONSUMER_JAVA_OPTS="${CONSUMER_JAVA_OPTS:--Xms256m -Xmx256m -XX:+UseSerialGC}"
scripts/tools.sh browser k6
rm -rf build/browser && mkdir -p build/browser
trap harness_down EXIT
harness_up waiting-room
eval "$(local/infra.sh env)"
export DB_URL DB_USER DB_PASSWORD KAFKA_BOOTSTRAP
tests/pytest.sh tests/browser "$@"
echo "screenshots: $(ls build/browser/*.png | wc -l) in build/browser/"
