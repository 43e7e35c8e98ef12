# Sourced by the test runners that need the local harness (tests/loadtests, tests/observability),
# from the repository root. Ports follow PORT_OFFSET and state lives in RUN_DIR, as for local/*.sh.
#   harness_up [waiting-room]
#                 starts Redis Cluster, Kafka and MariaDB (local/infra.sh) and the API and consumer
#                 (local/services.sh), plus the waiting room when named, unless they already answer
#                 ready; fails if any fails
#   harness_down  stops only what harness_up started; KEEP=1 leaves it running
# The pinned tools and the JDK, as the Makefile puts them on PATH (for a runner started by hand).
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}" PORT_OFFSET="${PORT_OFFSET:-0}"
export PATH="$PWD/.tools/bin:$JAVA_HOME/bin:$PATH"
harness_started_infra=0
harness_started_services=0

harness_ready() { curl -fsS "http://127.0.0.1:$1/actuator/health/readiness" >/dev/null 2>&1; }

harness_up() {
  local room=0 jars=(services/coupon-api/target/*.jar services/coupon-consumer/target/*.jar)
  [ "${1:-}" = waiting-room ] && room=1 && jars+=(services/coupon-waiting-room/target/*.jar)
  harness_ready $((8081 + PORT_OFFSET)) && harness_ready $((8091 + PORT_OFFSET)) \
    && { [ $room = 0 ] || harness_ready $((8071 + PORT_OFFSET)); } && return 0
  ls "${jars[@]}" >/dev/null 2>&1 || { echo "service jars missing: run \`make build\` first" >&2; return 1; }
  # `infra.sh status` lists every part and whether it is down (and exits 0 either way).
  local status; status=$(local/infra.sh status 2>&1) || true
  case "$status" in *" down"*) harness_started_infra=1 ;; esac
  local/infra.sh up || return 1
  harness_started_services=1
  if [ $room = 1 ]; then local/services.sh up; else local/services.sh up api consumer; fi
}

harness_down() {
  [ "${KEEP:-0}" = 1 ] && return 0
  # `down` without names stops the waiting room too when it runs.
  if [ "$harness_started_services" = 1 ]; then local/services.sh down >/dev/null 2>&1 || true; fi
  if [ "$harness_started_infra" = 1 ]; then local/infra.sh down >/dev/null 2>&1 || true; fi
}
