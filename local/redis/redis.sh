# Redis Cluster of 9 nodes (3 masters, 2 replicas each) on HARNESS_HOST:7001-7009 (+PORT_OFFSET), as
# the chart's redis-cluster: a promoted master still has a replica to hold a reservation (WAIT 1).
# Sourced by local/infra.sh after local/lib/common.sh.

REDIS_DIR="$RUN_DIR/redis"
REDIS_CLI=(redis-cli -h "$HARNESS_HOST")

redis_cmd() { local p=$1; shift; "${REDIS_CLI[@]}" -p "$p" "$@"; }
redis_info() { redis_cmd "$1" cluster info 2>/dev/null | tr -d '\r' | sed -n "s/^$2://p"; }

redis_start_node() {
  local p=$1 dir="$REDIS_DIR/$1"
  is_running "redis-$p" && return 0
  mkdir -p "$dir"
  # AOF (fsync every second) so that stock counters survive `down`/`up` like the MariaDB rows do.
  # the node timeout (a master failed over after it) from HARNESS_PROFILE (local/lib/common.sh)
  start_bg "redis-$p" "$dir/redis.log" "$HARNESS_HOST:$p" \
    redis-server --port "$p" --bind "$HARNESS_HOST" --protected-mode no --dir "$dir" \
      --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout "$REDIS_CLUSTER_NODE_TIMEOUT_MS" \
      --cluster-replica-validity-factor 0 --appendonly yes --appendfsync everysec --save '' \
      --maxclients 10000 --tcp-backlog 511 --loglevel notice
}

redis_all_ok() {
  local p
  for p in "${REDIS_PORTS[@]}"; do
    [ "$(redis_info "$p" cluster_state)" = ok ] || return 1
    [ "$(redis_info "$p" cluster_known_nodes)" = "${#REDIS_PORTS[@]}" ] || return 1
  done
}
redis_all_alone() {
  local p
  for p in "${REDIS_PORTS[@]}"; do
    [ "$(redis_info "$p" cluster_known_nodes)" = 1 ] && [ "$(redis_cmd "$p" dbsize 2>/dev/null)" = 0 ] || return 1
  done
}
redis_all_ping() { local p; for p in "${REDIS_PORTS[@]}"; do [ "$(redis_cmd "$p" ping 2>/dev/null)" = PONG ] || return 1; done; }

redis_up() {
  local p
  for p in "${REDIS_PORTS[@]}"; do redis_start_node "$p"; done
  wait_until 30 "redis nodes to answer PING" redis_all_ping || return 1
  # A node that restarted from its nodes.conf rejoins its old cluster by itself.
  if wait_until 3 "" redis_all_ok 2>/dev/null; then return 0; fi
  local fresh=1 formed=1
  local known slots
  for p in "${REDIS_PORTS[@]}"; do
    known=$(redis_info "$p" cluster_known_nodes); slots=$(redis_info "$p" cluster_slots_assigned)
    [ "$known" = 1 ] && [ "$slots" = 0 ] || fresh=0
    [ "$known" = "${#REDIS_PORTS[@]}" ] && [ "$slots" = 16384 ] || formed=0
  done
  if [ $formed = 1 ]; then
    # The cluster exists (restarted nodes, or a busy machine): let it settle, never wipe it.
    wait_until 90 "redis cluster_state:ok" redis_all_ok; return
  fi
  if [ $fresh = 0 ]; then
    log "redis nodes disagree about the cluster: resetting every node and creating it again (empty)"
    # A replica refuses FLUSHALL, and a master with keys refuses the reset: a node promoted while
    # others were reset keeps its keys, so reset in rounds until every node is alone and empty.
    local _
    for _ in 1 2 3; do
      for p in "${REDIS_PORTS[@]}"; do redis_cmd "$p" flushall >/dev/null 2>&1 || true; redis_cmd "$p" cluster reset hard >/dev/null 2>&1 || true; done
      redis_all_alone && break
    done
  fi
  local hosts=(); for p in "${REDIS_PORTS[@]}"; do hosts+=("$HARNESS_HOST:$p"); done
  redis-cli --cluster create "${hosts[@]}" --cluster-replicas 2 --cluster-yes >"$REDIS_DIR/create.log" 2>&1 \
    || { cat "$REDIS_DIR/create.log" >&2; return 1; }
  wait_until 90 "redis cluster_state:ok on every node" redis_all_ok
}

redis_down() { local p; for p in "${REDIS_PORTS[@]}"; do stop_pid "redis-$p" TERM 10 & done; wait; }

redis_masters() {
  redis_cmd "${REDIS_PORTS[0]}" cluster nodes 2>/dev/null | awk '$3 ~ /master/ && $3 !~ /fail/ {split($2, a, "[:@]"); print a[2]}'
}

redis_flush() {
  local p n=0
  for p in $(redis_masters); do redis_cmd "$p" flushall >/dev/null && n=$((n + 1)); done
  log "redis: FLUSHALL on $n masters"
  [ "$n" -ge 3 ]
}

redis_status() {
  local p
  for p in "${REDIS_PORTS[@]}"; do
    if is_running "redis-$p"; then
      printf '  %-16s pid %-7s %4s MiB  state=%s role=%s\n' "redis:$p" "$(pid_of "redis-$p")" "$(rss_mib "redis-$p")" \
        "$(redis_info "$p" cluster_state)" "$(redis_cmd "$p" role 2>/dev/null | head -1)"
    else
      printf '  %-16s down\n' "redis:$p"
    fi
  done
}

# ---- fault injection (tests/faults) ---------------------------------------------------------------
# redis_master_of KEY: the port of the live master that serves KEY's hash slot.
redis_master_of() {
  local at slot; at=$(redis_any_up)
  slot=$(redis_cmd "$at" cluster keyslot "$1" | tr -d '\r')
  # `cluster nodes`: id addr flags master ping pong epoch link slot-range...
  redis_cmd "$at" cluster nodes | tr -d '\r' | awk -v s="$slot" '$3 ~ /master/ && $3 !~ /fail/ {
    for (i = 9; i <= NF; i++) { n = split($i, r, "-"); lo = r[1]; hi = (n == 2 ? r[2] : r[1])
      if (s + 0 >= lo + 0 && s + 0 <= hi + 0) { split($2, a, "[:@]"); print a[2]; exit } } }'
}

# a node that answers PING (the first port may be the one that was killed)
redis_any_up() { local p; for p in "${REDIS_PORTS[@]}"; do [ "$(redis_cmd "$p" ping 2>/dev/null)" = PONG ] && { echo "$p"; return; }; done; echo "${REDIS_PORTS[0]}"; }

redis_kill() {
  local p=$1
  is_running "redis-$p" || die "redis node $p is not running"
  log "redis node $p: SIGKILL (pid $(pid_of "redis-$p"))"
  stop_pid "redis-$p" KILL 10
}

# The cluster is whole again without node P: every one of the 16384 slots is served by a master
# that is not P and not suspected of failing (`fail?` or `fail`), and the nodes say cluster_state:ok.
redis_failed_over() {
  local p=$1 q alive=
  for q in "${REDIS_PORTS[@]}"; do
    [ "$q" = "$p" ] && continue
    [ "$(redis_cmd "$q" ping 2>/dev/null)" = PONG ] || continue
    alive=$q
    [ "$(redis_info "$q" cluster_state)" = ok ] || return 1
  done
  [ -n "$alive" ] || return 1
  [ "$(redis_cmd "$alive" cluster nodes 2>/dev/null | tr -d '\r' | awk -v port="$p" '
    $3 ~ /master/ && $3 !~ /fail/ && $2 !~ ":"port"@" {
      for (i = 9; i <= NF; i++) { if ($i ~ /^\[/) continue; n = split($i, r, "-"); total += (n == 2 ? r[2] - r[1] + 1 : 1) } }
    END { print total + 0 }')" = 16384 ]
}

redis_wait_failover() { wait_until "${2:-90}" "redis failover away from node $1" redis_failed_over "$1"; }

# Starts node P again (it rejoins from its nodes.conf, as a replica once failed over) and waits
# until every node sees a whole cluster.
redis_restart() { redis_start_node "$1"; wait_until 90 "redis cluster_state:ok on every node" redis_all_ok; }
