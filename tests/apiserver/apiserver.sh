#!/usr/bin/env bash
# A real, controller-less Kubernetes control plane on loopback for chart tests: etcd + kube-apiserver
# (built by scripts/tools.sh), with TLS, a static token, RBAC + Node authorization and service-account
# signing keys. No scheduler, controller-manager or kubelet: objects are stored and validated, never run.
#
#   tests/apiserver/apiserver.sh up      start (idempotent), wait until /readyz, write the kubeconfig
#   tests/apiserver/apiserver.sh down    stop both processes by PID and delete the data
#   tests/apiserver/apiserver.sh env     print `export KUBECONFIG=...`
#   tests/apiserver/apiserver.sh status
#
# State lives in APISERVER_DIR (default .run/apiserver): certs, token file, etcd data, logs, PIDs,
# ports and the kubeconfig. Ports are free ones picked at start, so harnesses never collide.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DIR="${APISERVER_DIR:-$ROOT/.run/apiserver}"
BIN="${TOOLS_BIN:-$ROOT/.tools/bin}"
KUBECONFIG_FILE="$DIR/kubeconfig"
SERVICE_CIDR=10.96.0.0/16
READY_TIMEOUT=${APISERVER_READY_TIMEOUT:-420}   # s; the first start on a busy 2-core box is slow

log() { printf '[apiserver] %s\n' "$*" >&2; }

alive() { [ -f "$DIR/$1.pid" ] && kill -0 "$(cat "$DIR/$1.pid")" 2>/dev/null; }

# N distinct free loopback ports (all held open until printed, so they differ).
free_ports() {
  python3 -c 'import socket,sys
ss=[socket.socket() for _ in range(int(sys.argv[1]))]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))' "$1"
}

# A CA, a serving certificate for 127.0.0.1/localhost and the service-account key pair.
make_certs() {
  local pki="$DIR/pki"
  [ -f "$pki/sa.pub" ] && return 0
  mkdir -p "$pki"
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=coupon-event-test-ca" \
    -keyout "$pki/ca.key" -out "$pki/ca.crt" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" \
    -keyout "$pki/apiserver.key" -out "$pki/apiserver.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default.svc\n' > "$pki/san.ext"
  openssl x509 -req -in "$pki/apiserver.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
    -days 2 -extfile "$pki/san.ext" -out "$pki/apiserver.crt" 2>/dev/null
  openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
  openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
}

write_kubeconfig() {
  local port=$1 token=$2
  cat > "$KUBECONFIG_FILE" <<EOF
apiVersion: v1
kind: Config
clusters:
  - name: chart-test
    cluster:
      server: https://127.0.0.1:$port
      certificate-authority: $DIR/pki/ca.crt
users:
  - name: chart-test-admin
    user:
      token: $token
contexts:
  - name: chart-test
    context: {cluster: chart-test, user: chart-test-admin, namespace: default}
current-context: chart-test
EOF
  chmod 600 "$KUBECONFIG_FILE"
}

wait_ready() {
  local port=$1 token=$2 deadline=$(( $(date +%s) + $READY_TIMEOUT ))
  while [ "$(date +%s)" -lt "$deadline" ]; do
    if curl -fsS --max-time 2 --cacert "$DIR/pki/ca.crt" -H "Authorization: Bearer $token" \
        "https://127.0.0.1:$port/readyz" >/dev/null 2>&1; then
      return 0
    fi
    alive kube-apiserver || { log "kube-apiserver exited; last log lines:"; tail -n 30 "$DIR/kube-apiserver.log" >&2; return 1; }
    sleep 0.1
  done
  log "kube-apiserver not ready after $READY_TIMEOUT s"; tail -n 30 "$DIR/kube-apiserver.log" >&2; return 1
}

up() {
  for b in etcd kube-apiserver kubectl; do
    [ -x "$BIN/$b" ] || { log "$BIN/$b missing: run scripts/tools.sh etcd kube-apiserver kubectl"; exit 1; }
  done
  if alive etcd && alive kube-apiserver; then log "already running"; return 0; fi
  down >/dev/null 2>&1 || true
  local t0; t0=$(date +%s%N)
  mkdir -p "$DIR"
  make_certs
  local token; token=$(openssl rand -hex 24)
  echo "$token,chart-test-admin,chart-test-admin,\"system:masters\"" > "$DIR/tokens.csv"
  chmod 600 "$DIR/tokens.csv"
  local etcd_port peer_port api_port
  read -r etcd_port peer_port api_port <<<"$(free_ports 3)"
  echo "$api_port" > "$DIR/port"

  # The data is thrown away after the run: no fsync keeps etcd fast on a busy disk.
  "$BIN/etcd" --name chart-test --data-dir "$DIR/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "chart-test=http://127.0.0.1:$peer_port" \
    --unsafe-no-fsync --log-level warn >"$DIR/etcd.log" 2>&1 &
  echo $! > "$DIR/etcd.pid"

  "$BIN/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$etcd_port" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$api_port" \
    --tls-cert-file "$DIR/pki/apiserver.crt" --tls-private-key-file "$DIR/pki/apiserver.key" \
    --client-ca-file "$DIR/pki/ca.crt" \
    --token-auth-file "$DIR/tokens.csv" \
    --authorization-mode Node,RBAC \
    --enable-admission-plugins NodeRestriction \
    --service-account-key-file "$DIR/pki/sa.pub" \
    --service-account-signing-key-file "$DIR/pki/sa.key" \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-cluster-ip-range "$SERVICE_CIDR" \
    --allow-privileged=true \
    --profiling=false \
    >"$DIR/kube-apiserver.log" 2>&1 &
  echo $! > "$DIR/kube-apiserver.pid"

  write_kubeconfig "$api_port" "$token"
  wait_ready "$api_port" "$token"
  awk -v ns=$(( $(date +%s%N) - t0 )) 'BEGIN { printf "%.2f\n", ns / 1e9 }' > "$DIR/ready-seconds"
  log "ready in $(cat "$DIR/ready-seconds") s on https://127.0.0.1:$api_port (KUBECONFIG=$KUBECONFIG_FILE)"
}

stop_pid() {
  local name=$1 pid _
  [ -f "$DIR/$name.pid" ] || return 0
  pid=$(cat "$DIR/$name.pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$DIR/$name.pid"
}

down() {
  stop_pid kube-apiserver
  stop_pid etcd
  rm -rf "$DIR"
  log "stopped"
}

status() {
  local s=0
  for p in etcd kube-apiserver; do
    if alive "$p"; then echo "$p running (pid $(cat "$DIR/$p.pid"))"; else echo "$p stopped"; s=1; fi
  done
  return $s
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  env) echo "export KUBECONFIG=$KUBECONFIG_FILE" ;;
  status) status ;;
  *) sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
