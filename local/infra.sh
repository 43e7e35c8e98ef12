#!/usr/bin/env bash
# Local infrastructure harness: Redis Cluster (9 nodes), Kafka (3 brokers, 3 KRaft controllers), MariaDB, all on
# HARNESS_HOST (127.0.0.1) at the contract ports + PORT_OFFSET, state under RUN_DIR (default .run/infra).
# HARNESS_KAFKA=0: `up` starts Redis and MariaDB only (the test cluster runs its own Kafka).
# See local/README.md. Usage: local/infra.sh COMMAND
#   up | down | status | env | timeouts | reset | redis-flush
#   kafka-stop [N..] | kafka-start [N..] | kafka-balance | kafka-kill N
#   fault injection (tests/faults): pid NAME | redis-master-of KEY | redis-kill PORT |
#   redis-wait-failover PORT [TIMEOUT_S] | redis-start PORT | mariadb-stop | mariadb-kill | mariadb-start |
#   mariadb-read-only on|off
set -euo pipefail
# shellcheck disable=SC2034  # read by log() in lib/common.sh
LOG_TAG=infra
# shellcheck source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$LOCAL_DIR/redis/redis.sh"
source "$LOCAL_DIR/kafka/kafka.sh"
source "$LOCAL_DIR/mariadb/mariadb.sh"

# One command at a time per RUN_DIR (two `up`s racing would start everything twice); `env` and
# `status` only read (as do `pid`, `redis-master-of` and `redis-wait-failover`, which a fault test
# calls while another command waits). Servers are started with this descriptor closed (see start_bg).
case "${1:-}" in env|status|pid|redis-master-of|redis-wait-failover|'') ;; *) exec 8>"$RUN_DIR/infra.lock"; flock 8 ;; esac

cmd_env() {
  local redis kafka db="jdbc:mysql://$HARNESS_HOST:$MARIADB_PORT/$DB_NAME"
  redis=$(redis_nodes); kafka=$(kafka_bootstrap)
  cat <<ENV
export REDIS_NODES=$redis
export KAFKA_BOOTSTRAP=$kafka
export DB_URL=$db
export DB_USER=$DB_USER
export DB_PASSWORD=$DB_PASSWORD
export SPRING_DATA_REDIS_CLUSTER_NODES=$redis
export SPRING_KAFKA_BOOTSTRAP_SERVERS=$kafka
export SPRING_DATASOURCE_URL=$db
export SPRING_DATASOURCE_USERNAME=$DB_USER
export SPRING_DATASOURCE_PASSWORD=$DB_PASSWORD
ENV
}

# The failure-detection timeouts the running nodes use (local/lib/common.sh), one NAME=VALUE a line;
# empty while a part is down.
cmd_timeouts() {
  local p node_ms=""
  for p in "${REDIS_PORTS[@]}"; do
    node_ms=$(redis_cmd "$p" config get cluster-node-timeout 2>/dev/null | tr -d '\r' | sed -n 2p) && [ -n "$node_ms" ] && break
  done
  local props="$KAFKA_DIR/${KAFKA_NODES[0]}/server.properties"
  echo "redis.cluster-node-timeout.ms=$node_ms"
  echo "kafka.broker.session.timeout.ms=$(sed -n 's/^broker.session.timeout.ms=//p' "$props" 2>/dev/null)"
  echo "kafka.broker.heartbeat.interval.ms=$(sed -n 's/^broker.heartbeat.interval.ms=//p' "$props" 2>/dev/null)"
  echo "kafka.controller.quorum.election.timeout.ms=$(sed -n 's/^controller.quorum.election.timeout.ms=//p' "$props" 2>/dev/null)"
  echo "kafka.controller.quorum.fetch.timeout.ms=$(sed -n 's/^controller.quorum.fetch.timeout.ms=//p' "$props" 2>/dev/null)"
}

cmd_up() {
  local t0 t; t0=$(now_ms)
  local kafka=${HARNESS_KAFKA:-1}
  "$ROOT/scripts/tools.sh" apt kafka
  log "starting in $RUN_DIR (PORT_OFFSET=$PORT_OFFSET)"
  # Kafka's JVMs are the slowest to come up: start them first and do the rest meanwhile.
  t=$(now_ms); [ "$kafka" = 0 ] || kafka_launch
  mariadb_up; log "mariadb ready on $MARIADB_PORT ($(elapsed "$t"))"
  redis_up; log "redis cluster ok on ${REDIS_PORTS[0]}-${REDIS_PORTS[-1]} ($(elapsed "$t"))"
  if [ "$kafka" != 0 ]; then
    kafka_wait_started; log "kafka nodes started ($(elapsed "$t"))"
    kafka_create_topics
    kafka_wait_healthy; log "kafka topics $KAFKA_TOPIC ($KAFKA_TOPIC_PARTITIONS) and $KAFKA_DLT ($KAFKA_DLT_PARTITIONS) ready ($(elapsed "$t"))"
  fi
  log "infra up in $(elapsed "$t0"); eval \"\$(local/infra.sh env)\" for the variables"
}

cmd_down() {
  local t; t=$(now_ms)
  # Kafka first, while its quorum is still whole, so that controlled shutdown is quick.
  kafka_stop & redis_down & mariadb_down & wait
  log "infra down ($(elapsed "$t"))"
}

cmd_status() {
  echo "RUN_DIR=$RUN_DIR PORT_OFFSET=$PORT_OFFSET"
  redis_status; kafka_status; mariadb_status
}

# Nodes named (a fault scenario's restart): back in sync, their leaderships left where the failover
# put them, as on a cluster, where Kafka's own preferred-leader rebalance moves them back minutes
# later (leader.imbalance.check.interval.seconds, 300 s). Moved at once, they landed on a broker whose
# JVM was seconds old: produce requests to it timed out (request.timeout.ms, 1.8 s) and held 15 sends
# in one kafka-broker run, refusals 35 s after the kill. Every node (no names): leaders balanced.
cmd_kafka_start() {
  local t; t=$(now_ms)
  kafka_launch "$@"
  kafka_wait_started
  if [ $# -gt 0 ]; then
    wait_until "$KAFKA_HEALTHY_TIMEOUT" "every kafka partition to be fully replicated" kafka_healthy
  else
    kafka_wait_healthy
  fi
  log "kafka healthy ($(elapsed "$t"))"
}

cmd_reset() {
  local t; t=$(now_ms)
  # services of this harness cache the catalog and hold connections to what is dropped here
  "$LOCAL_DIR/services.sh" down >/dev/null 2>&1 || true
  mariadb_reset
  kafka_recreate_topics; kafka_wait_healthy 60
  log "kafka: topics $KAFKA_TOPIC and $KAFKA_DLT recreated empty"
  redis_flush
  log "reset done ($(elapsed "$t"))"
}

case "${1:-}" in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  env) cmd_env ;;
  timeouts) cmd_timeouts ;;
  reset) cmd_reset ;;
  redis-flush) redis_flush ;;
  kafka-stop) shift; kafka_stop "$@"; log "kafka stopped: ${*:-all nodes}" ;;
  kafka-start) shift; cmd_kafka_start "$@" ;;
  kafka-balance) kafka_balance_leaders ;;
  kafka-kill) [ $# -eq 2 ] || die "usage: $0 kafka-kill N (brokers 1-3, controllers 4-6)"; kafka_kill "$2" ;;
  # fault injection: processes by the PID of their PID file (NAME: kafka-N, redis-PORT, mariadb)
  pid) [ $# -eq 2 ] || die "usage: $0 pid NAME"; is_running "$2" || die "$2 is not running"; pid_of "$2" ;;
  redis-master-of) [ $# -eq 2 ] || die "usage: $0 redis-master-of KEY"; redis_master_of "$2" ;;
  redis-kill) [ $# -eq 2 ] || die "usage: $0 redis-kill PORT"; redis_kill "$2" ;;
  redis-wait-failover) [ $# -ge 2 ] || die "usage: $0 redis-wait-failover PORT [TIMEOUT_S]"; redis_wait_failover "$2" "${3:-90}"; log "redis: every slot served without node $2" ;;
  redis-start) [ $# -eq 2 ] || die "usage: $0 redis-start PORT"; redis_restart "$2"; log "redis node $2 back, cluster ok" ;;
  mariadb-stop) mariadb_down; log "mariadb stopped" ;;
  mariadb-kill) mariadb_kill ;;
  mariadb-start) mariadb_up; log "mariadb ready" ;;
  mariadb-read-only) [ $# -eq 2 ] || die "usage: $0 mariadb-read-only on|off"; mariadb_read_only "$2" ;;
  *) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
