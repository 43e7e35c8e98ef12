#!/usr/bin/env bash
# Local Prometheus (Debian's `prometheus` package, installed by scripts/tools.sh) scraping the three
# services' management ports, evaluating monitoring/rules, and accepting k6 remote write.
#   local/prometheus.sh up|down|status|render FILE
# Listens on 127.0.0.1:(9090 + PORT_OFFSET); data, log and PID under $RUN_DIR/prometheus.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OFFSET=${PORT_OFFSET:-0}
RUN_DIR=${RUN_DIR:-$ROOT/.run/infra}
case "$RUN_DIR" in /*) ;; *) RUN_DIR="$ROOT/$RUN_DIR" ;; esac
DIR="$RUN_DIR/prometheus"
PORT=$((9090 + OFFSET))
PID_FILE="$DIR/prometheus.pid"
URL="http://127.0.0.1:$PORT"

render() {
  sed -e "s#@ROOT@#$ROOT#g" \
      -e "s#@API_MANAGEMENT_PORT@#$((8081 + OFFSET))#g" \
      -e "s#@CONSUMER_MANAGEMENT_PORT@#$((8091 + OFFSET))#g" \
      -e "s#@WAITING_ROOM_MANAGEMENT_PORT@#$((8071 + OFFSET))#g" \
      -e "s#@PROMETHEUS_PORT@#$PORT#g" \
      "$ROOT/monitoring/prometheus/prometheus.yml.tmpl" > "$1"
}

running() { [ -f "$PID_FILE" ] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null; }

up() {
  if running; then echo "prometheus already running: $URL (pid $(cat "$PID_FILE"))"; return 0; fi
  command -v prometheus >/dev/null || "$ROOT/scripts/tools.sh" apt
  mkdir -p "$DIR/data"
  render "$DIR/prometheus.yml"
  # The Debian binary defaults its console paths to /etc; point them at our dir to stay self-contained.
  nohup prometheus --config.file="$DIR/prometheus.yml" --storage.tsdb.path="$DIR/data" \
    --storage.tsdb.retention.time=2d --web.listen-address="127.0.0.1:$PORT" \
    --web.enable-remote-write-receiver --web.enable-lifecycle \
    --web.console.templates="$DIR" --web.console.libraries="$DIR" \
    >"$DIR/prometheus.log" 2>&1 &
  echo $! > "$PID_FILE"
  for _ in $(seq 1 60); do
    if curl -fsS "$URL/-/ready" >/dev/null 2>&1; then
      echo "prometheus listening on $URL (remote write: $URL/api/v1/write; log: $DIR/prometheus.log)"
      return 0
    fi
    running || break
    sleep 1
  done
  echo "prometheus did not become ready; see $DIR/prometheus.log" >&2
  tail -20 "$DIR/prometheus.log" >&2 || true
  return 1
}

down() {
  if running; then
    local pid; pid=$(cat "$PID_FILE")
    kill "$pid"
    for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" || true
    echo "prometheus stopped"
  fi
  rm -f "$PID_FILE"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) if running; then echo "prometheus running: $URL (pid $(cat "$PID_FILE"))"; else echo "prometheus not running"; exit 1; fi ;;
  render) render "${2:?usage: $0 render FILE}" ;;
  *) echo "usage: $0 up|down|status|render FILE" >&2; exit 2 ;;
esac
