#!/usr/bin/env bash
# A single-node Kubernetes on this machine: etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, a kubelet on containerd (runc, CNI bridge), kube-proxy (iptables), kube-router's
# firewall (NetworkPolicies enforced; NETWORK_POLICIES=0 leaves them stored only), CoreDNS and the
# registry every image is pulled from, all in a network namespace of their own, so pod, service and
# node addresses belong to this cluster alone and nothing listens outside it. See k8s/node/README.md.
#
#   k8s/node/node.sh up              start everything (idempotent), wait for the node and CoreDNS
#   k8s/node/node.sh down            stop every process by PID, remove pods, network and state
#   k8s/node/node.sh status
#   k8s/node/node.sh exec CMD...     run CMD inside the node's network namespace, KUBECONFIG set
#   k8s/node/node.sh push TAR...     push images.py's image tars to the node's registry
#
# Binaries come from scripts/tools.sh (node), images from k8s/node/images.py, pushed to the
# registry at REGISTRY and pulled from there. State under NODE_DIR (default .run/cluster/node);
# logs in NODE_DIR/logs.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/k8s/node"
DIR="${NODE_DIR:-$ROOT/.run/cluster/node}"
BIN="${TOOLS_BIN:-$ROOT/.tools/bin}"
export PATH="$BIN:$PATH"

# ---- the cluster's addresses (all inside the namespace) -----------------------------------------
NETNS=${NODE_NETNS:-coupon-node}
NETNS_PATH=/var/run/netns/$NETNS
NODE_NAME=coupon-node
NODE_IP=10.245.0.1            # on node0, a port-less bridge (this kernel has no dummy links)
POD_CIDR=10.244.0.0/24        # the CNI bridge cni0 is 10.244.0.1
SERVICE_CIDR=10.96.0.0/16
DNS_IP=10.96.0.10
API_PORT=6443
KUBECONFIG_FILE="$DIR/admin.kubeconfig"
STATE=/run/coupon-node        # containerd's state and socket (tmpfs-like, short socket paths)
SOCK=$STATE/containerd.sock
IMAGES_DIR="$ROOT/build/cluster/images"
# Debian's docker-registry on the node's address: every image the node runs is pushed there and
# pulled by containerd over plain HTTP (an insecure registry host, containerd's hosts.toml).
REGISTRY=$NODE_IP:5000
IMAGE_REGISTRY=$REGISTRY
PAUSE_IMAGE=$IMAGE_REGISTRY/pause:coupon-event
COREDNS_VERSION_TAG=1.15.0
READY_TIMEOUT=${NODE_READY_TIMEOUT:-600}
SHARED="${SHARED_DIR:-$ROOT/../shared}"
NETWORK_POLICIES=${NETWORK_POLICIES:-1}   # 0: no kube-router, NetworkPolicies stored but not enforced
KUBE_ROUTER_VERSION=$(sed -n 's/^KUBE_ROUTER_VERSION=\(v[0-9.]*\).*/\1/p' "$ROOT/scripts/tools.sh")

log() { printf '[%s node] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
in_ns() { nsenter --net="$NETNS_PATH" "$@"; }
kc() { in_ns "$BIN/kubectl" --kubeconfig "$KUBECONFIG_FILE" "$@"; }

pidf() { echo "$DIR/pids/$1.pid"; }
alive() { [ -f "$(pidf "$1")" ] && kill -0 "$(cat "$(pidf "$1")")" 2>/dev/null; }
# start NAME CMD...: CMD in the node's namespace, in the background, its PID recorded.
start() {
  local name=$1; shift
  alive "$name" && return 0
  mkdir -p "$DIR/pids" "$DIR/logs"
  nohup nsenter --net="$NETNS_PATH" "$@" >>"$DIR/logs/$name.log" 2>&1 </dev/null 8>&- 9>&- &
  echo $! > "$(pidf "$name")"
}
stop() {
  local name=$1 pid _
  [ -f "$(pidf "$name")" ] || return 0
  pid=$(cat "$(pidf "$name")")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$(pidf "$name")"
}
# wait_for WHAT SECONDS CMD...: CMD until it succeeds; the component logs are named on failure.
wait_for() {
  local what=$1 timeout=$2; shift 2
  local deadline=$(( SECONDS + timeout ))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt "$deadline" ] || die "$what not ready after ${timeout}s (logs: $DIR/logs)"
    sleep 1
  done
}

# ---- network ---------------------------------------------------------------------------------------
net_up() {
  [ -e "$NETNS_PATH" ] || ip netns add "$NETNS"
  in_ns ip link set lo up
  in_ns ip link show node0 >/dev/null 2>&1 || in_ns ip link add node0 type bridge
  in_ns ip link set node0 up
  in_ns ip addr show dev node0 | grep -q "$NODE_IP/" || in_ns ip addr add "$NODE_IP/32" dev node0
  # Service addresses are only rewritten by kube-proxy's rules after routing: they need a route.
  in_ns ip route replace default dev node0
  in_ns sysctl -qw net.ipv4.ip_forward=1
  # Pod-to-service-to-pod on one bridge: the reply must pass through iptables to be un-NATed.
  in_ns sysctl -qw net.bridge.bridge-nf-call-iptables=1 2>/dev/null || true
}
net_down() {
  [ -e "$NETNS_PATH" ] && ip netns delete "$NETNS" 2>/dev/null || true
}

# ---- certificates and kubeconfigs ----------------------------------------------------------------
# cert NAME CN [O] [SAN]: a key and a certificate signed by the cluster CA.
cert() {
  local name=$1 cn=$2 org=${3:-} san=${4:-} ca=${5:-ca} pki="$DIR/pki" subj
  [ -f "$pki/$name.crt" ] && return 0
  subj="/CN=$cn"; [ -n "$org" ] && subj="/O=$org$subj"
  openssl req -newkey rsa:2048 -nodes -subj "$subj" -keyout "$pki/$name.key" -out "$pki/$name.csr" 2>/dev/null
  if [ -n "$san" ]; then printf 'subjectAltName=%s\n' "$san" > "$pki/$name.ext"; else : > "$pki/$name.ext"; fi
  openssl x509 -req -in "$pki/$name.csr" -CA "$pki/$ca.crt" -CAkey "$pki/$ca.key" -CAcreateserial \
    -days 7 -extfile "$pki/$name.ext" -out "$pki/$name.crt" 2>/dev/null
}
kubeconfig() {
  local name=$1 pki="$DIR/pki"
  cat > "$DIR/$name.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
  - name: $NODE_NAME
    cluster: {server: "https://$NODE_IP:$API_PORT", certificate-authority: "$pki/ca.crt"}
users:
  - name: $name
    user: {client-certificate: "$pki/$name.crt", client-key: "$pki/$name.key"}
contexts:
  - name: $name
    context: {cluster: $NODE_NAME, user: $name, namespace: default}
current-context: $name
EOF
  chmod 600 "$DIR/$name.kubeconfig"
}
pki() {
  local pki="$DIR/pki"
  mkdir -p "$pki"
  if [ ! -f "$pki/ca.crt" ]; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 7 -subj "/CN=coupon-node-ca" \
      -keyout "$pki/ca.key" -out "$pki/ca.crt" 2>/dev/null
    # The aggregation layer (KEDA's metrics API) authenticates the apiserver's proxy with its own CA.
    openssl req -x509 -newkey rsa:2048 -nodes -days 7 -subj "/CN=coupon-node-front-proxy-ca" \
      -keyout "$pki/front-proxy-ca.key" -out "$pki/front-proxy-ca.crt" 2>/dev/null
    openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
    openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
  fi
  cert apiserver kube-apiserver "" "IP:$NODE_IP,IP:10.96.0.1,IP:127.0.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  cert apiserver-kubelet-client kube-apiserver-kubelet-client system:masters
  cert front-proxy-client front-proxy-client "" "" front-proxy-ca
  cert admin coupon-node-admin system:masters
  cert controller-manager system:kube-controller-manager
  cert scheduler system:kube-scheduler
  cert kubelet "system:node:$NODE_NAME" system:nodes
  cert kubelet-serving "$NODE_NAME" "" "IP:$NODE_IP,DNS:$NODE_NAME"
  cert kube-proxy system:kube-proxy
  cert kube-router system:kube-router
  for k in admin controller-manager scheduler kubelet kube-proxy kube-router; do kubeconfig "$k"; done
}

# ---- images ----------------------------------------------------------------------------------------
image_tar() { echo "$IMAGES_DIR/$(echo "$1" | tr '/:' '__').tar"; }
# build_image TAG ARGS...: k8s/node/images.py build to the tar image_tar names (deterministic: a rebuild of
# the same inputs gives the same image ID).
build_image() {
  local tag=$1; shift
  python3 "$HERE/images.py" build --tag "$tag" --out "$(image_tar "$tag")" "$@"
}
push_images() {
  in_ns python3 "$HERE/images.py" push --insecure "$@" || die "push of $* failed"
}
node_images() {
  mkdir -p "$IMAGES_DIR" "$DIR/build"
  if [ ! -x "$DIR/build/pause" ] || [ "$HERE/pause/pause.c" -nt "$DIR/build/pause" ]; then
    gcc -static -Os -s -o "$DIR/build/pause" "$HERE/pause/pause.c"
  fi
  build_image "$PAUSE_IMAGE" --entrypoint '["/pause"]' --user 65535:65535 "$DIR/build/pause=/pause"
  build_image "$IMAGE_REGISTRY/coredns:$COREDNS_VERSION_TAG" --entrypoint '["/coredns"]' \
    "$BIN/coredns=/coredns"
  push_images "$(image_tar "$PAUSE_IMAGE")" "$(image_tar "$IMAGE_REGISTRY/coredns:$COREDNS_VERSION_TAG")"
}

# ---- registry --------------------------------------------------------------------------------------
registry_up() {
  mkdir -p "$DIR/registry/data"
  cat > "$DIR/registry/config.yml" <<EOF
version: 0.1
log: {level: warn, accesslog: {disabled: true}}
storage:
  filesystem: {rootdirectory: "$DIR/registry/data"}
  delete: {enabled: true}
http: {addr: "$REGISTRY"}
EOF
  start registry docker-registry serve "$DIR/registry/config.yml"
  wait_for registry 60 in_ns curl -fsS "http://$REGISTRY/v2/"
}
# containerd's registry hosts (config_path): the node's registry over plain HTTP, and the same
# registry as the mirror of ghcr.io, where the k6-operator's TestRuns name their starter image.
registry_hosts() {
  local d="$1" host
  for host in "$REGISTRY" ghcr.io; do
    mkdir -p "$d/$host"
    cat > "$d/$host/hosts.toml" <<EOF
server = "$([ "$host" = "$REGISTRY" ] && echo "http://$REGISTRY" || echo "https://$host")"
[host."http://$REGISTRY"]
  capabilities = ["pull", "resolve"]
EOF
  done
}

# ---- components ------------------------------------------------------------------------------------
containerd_up() {
  local c="$DIR/containerd"
  mkdir -p "$c/root" "$STATE" "$DIR/cni/net.d"
  registry_hosts "$c/certs.d"
  cat > "$DIR/cni/net.d/10-bridge.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "coupon-node",
  "plugins": [
    {"type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": false, "hairpinMode": true,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": "$POD_CIDR"}]], "routes": [{"dst": "0.0.0.0/0"}],
              "dataDir": "$DIR/cni/ipam"}},
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOF
  # restrict_oom_score_adj: this host withholds CAP_SYS_RESOURCE, so runc cannot lower a container's
  # OOM score and every sandbox would fail. SystemdCgroup false: the kubelet uses cgroupfs here.
  cat > "$c/config.toml" <<EOF
version = 2
root = "$c/root"
state = "$STATE"
[grpc]
  address = "$SOCK"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  restrict_oom_score_adj = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$DIR/cni/net.d"
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "$c/certs.d"
EOF
  start containerd containerd --config "$c/config.toml"
  wait_for containerd 60 in_ns ctr --address "$SOCK" version
}

etcd_up() {
  start etcd "$BIN/etcd" --name "$NODE_NAME" --data-dir "$DIR/etcd" \
    --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
    --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
    --initial-cluster "$NODE_NAME=http://127.0.0.1:2380" --unsafe-no-fsync --log-level warn
}

apiserver_up() {
  local pki="$DIR/pki"
  start kube-apiserver "$BIN/kube-apiserver" \
    --etcd-servers http://127.0.0.1:2379 \
    --bind-address "$NODE_IP" --advertise-address "$NODE_IP" --secure-port "$API_PORT" \
    --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" \
    --client-ca-file "$pki/ca.crt" \
    --kubelet-client-certificate "$pki/apiserver-kubelet-client.crt" \
    --kubelet-client-key "$pki/apiserver-kubelet-client.key" \
    --kubelet-preferred-address-types InternalIP \
    --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction \
    --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-cluster-ip-range "$SERVICE_CIDR" --allow-privileged=true \
    --requestheader-client-ca-file "$pki/front-proxy-ca.crt" \
    --requestheader-allowed-names front-proxy-client \
    --requestheader-username-headers X-Remote-User --requestheader-group-headers X-Remote-Group \
    --requestheader-extra-headers-prefix X-Remote-Extra- \
    --proxy-client-cert-file "$pki/front-proxy-client.crt" --proxy-client-key-file "$pki/front-proxy-client.key" \
    --enable-aggregator-routing=true --profiling=false
  wait_for kube-apiserver "$READY_TIMEOUT" kc get --raw /readyz
}

controllers_up() {
  local pki="$DIR/pki"
  # The HPA controller syncs every 5 s (default 15 s), so a test sees KEDA's decisions promptly.
  start kube-controller-manager "$BIN/kube-controller-manager" \
    --kubeconfig "$DIR/controller-manager.kubeconfig" \
    --authentication-kubeconfig "$DIR/controller-manager.kubeconfig" \
    --authorization-kubeconfig "$DIR/controller-manager.kubeconfig" \
    --bind-address 127.0.0.1 --leader-elect=false --use-service-account-credentials \
    --service-account-private-key-file "$pki/sa.key" --root-ca-file "$pki/ca.crt" \
    --cluster-signing-cert-file "$pki/ca.crt" --cluster-signing-key-file "$pki/ca.key" \
    --service-cluster-ip-range "$SERVICE_CIDR" --controllers '*,-cloud-node-lifecycle' \
    --horizontal-pod-autoscaler-sync-period 5s --profiling=false
  start kube-scheduler "$BIN/kube-scheduler" \
    --kubeconfig "$DIR/scheduler.kubeconfig" \
    --authentication-kubeconfig "$DIR/scheduler.kubeconfig" \
    --authorization-kubeconfig "$DIR/scheduler.kubeconfig" \
    --bind-address 127.0.0.1 --leader-elect=false --profiling=false
}

kubelet_up() {
  local pki="$DIR/pki"
  mkdir -p "$DIR/kubelet"
  # failCgroupV1: this host is cgroup v1 (hybrid); cgroupfs: no systemd runs the host.
  cat > "$DIR/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://$SOCK
address: $NODE_IP
readOnlyPort: 0
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: "$pki/ca.crt"}
authorization: {mode: Webhook}
tlsCertFile: "$pki/kubelet-serving.crt"
tlsPrivateKeyFile: "$pki/kubelet-serving.key"
clusterDomain: cluster.local
clusterDNS: ["$DNS_IP"]
resolvConf: "$DIR/kubelet/resolv.conf"
podCIDR: "$POD_CIDR"
maxPods: 60
serializeImagePulls: false
imageGCHighThresholdPercent: 100
evictionHard: {memory.available: "200Mi", nodefs.available: "1%", imagefs.available: "1%"}
evictionPressureTransitionPeriod: 10s
cgroupsPerQOS: true
enforceNodeAllocatable: ["pods"]
localStorageCapacityIsolation: false
shutdownGracePeriod: 0s
EOF
  # The node's upstream resolver: none exists in the namespace; CoreDNS answers cluster names only.
  echo "nameserver 127.0.0.1" > "$DIR/kubelet/resolv.conf"
  start kubelet "$BIN/kubelet" --config "$DIR/kubelet/config.yaml" \
    --kubeconfig "$DIR/kubelet.kubeconfig" --root-dir "$DIR/kubelet/root" \
    --hostname-override "$NODE_NAME" --node-ip "$NODE_IP" \
    --node-labels "coupon-event.io/pool=app"
  wait_for "node $NODE_NAME" "$READY_TIMEOUT" kc wait --for=condition=Ready "node/$NODE_NAME" --timeout=5s
}

proxy_up() {
  cat > "$DIR/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
clusterCIDR: $POD_CIDR
bindAddress: $NODE_IP
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
hostnameOverride: $NODE_NAME
clientConnection: {kubeconfig: "$DIR/kube-proxy.kubeconfig"}
# The namespace cannot raise the host's conntrack table: leave it as it is.
conntrack: {maxPerCore: 0, min: 0}
EOF
  start kube-proxy "$BIN/kube-proxy" --config "$DIR/kube-proxy.yaml"
}

# NetworkPolicies enforced: kube-router's network policy controller alone (its firewall; the CNI
# bridge keeps routing and kube-proxy the Services), with the RBAC of kube-router's own manifests
# bound to its user. It writes iptables rules and ipsets in the node's namespace.
firewall_up() {
  local rbac="$SHARED/src/kube-router-$KUBE_ROUTER_VERSION/daemonset/generic-kuberouter.yaml"
  [ -f "$rbac" ] || die "$rbac missing (SHARED_DIR)"
  python3 - "$rbac" <<'PY' | kc apply -f - >/dev/null
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d["kind"] == "ClusterRole"]
docs[0]["metadata"].pop("namespace", None)
docs.append({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
             "metadata": {"name": "kube-router"},
             "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "kube-router"},
             "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "system:kube-router"}]})
print(yaml.safe_dump_all(docs))
PY
  start kube-router "$BIN/kube-router" --run-firewall=true --run-router=false --run-service-proxy=false \
    --kubeconfig "$DIR/kube-router.kubeconfig" --hostname-override "$NODE_NAME" \
    --service-cluster-ip-range "$SERVICE_CIDR" --health-port 20244 --metrics-port 0
  wait_for kube-router 300 in_ns curl -fsS http://127.0.0.1:20244/healthz
}

coredns_up() {
  sed -e "s/@DNS_IP@/$DNS_IP/" -e "s#@IMAGE@#$IMAGE_REGISTRY/coredns:$COREDNS_VERSION_TAG#" \
    "$HERE/manifests/coredns.yaml" | kc apply -f - >/dev/null
  wait_for CoreDNS "$READY_TIMEOUT" kc -n kube-system rollout status deployment/coredns --timeout=5s
}

cmd_up() {
  local t0=$SECONDS b
  for b in etcd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl coredns kube-router; do
    [ -x "$BIN/$b" ] || die "$BIN/$b missing: run scripts/tools.sh node"
  done
  command -v docker-registry >/dev/null || die "docker-registry missing: run scripts/tools.sh node-apt"
  mkdir -p "$DIR"
  net_up
  pki
  registry_up
  node_images
  containerd_up
  etcd_up
  apiserver_up
  controllers_up
  kubelet_up
  proxy_up
  [ "$NETWORK_POLICIES" = 0 ] || firewall_up
  coredns_up
  log "node $NODE_NAME ready in $((SECONDS - t0)) s: apiserver https://$NODE_IP:$API_PORT in namespace $NETNS"
}

# Everything the kubelet started goes with it: the kubelet stops first (so it restarts nothing),
# then every container's task is killed through containerd, so no shim or container outlives it.
cmd_down() {
  stop kube-router
  stop kube-proxy
  stop kubelet
  if alive containerd; then
    local ctr=(in_ns ctr --address "$SOCK" -n k8s.io) id
    for id in $("${ctr[@]}" tasks ls -q 2>/dev/null); do "${ctr[@]}" tasks kill -s SIGKILL "$id" >/dev/null 2>&1 || true; done
    sleep 1
    for id in $("${ctr[@]}" tasks ls -q 2>/dev/null); do "${ctr[@]}" tasks delete -f "$id" >/dev/null 2>&1 || true; done
  fi
  for p in kube-scheduler kube-controller-manager kube-apiserver etcd containerd registry; do stop "$p"; done
  pkill -9 -f "containerd-shim-runc-v2 -namespace k8s.io -id [0-9a-f]* -address $SOCK" 2>/dev/null || true
  # The pods' network namespaces (containerd's CRI names them cni-<uuid>; with the tasks killed
  # outside the CRI nobody else removes them) and the kubelet's and containerd's mounts.
  local m ns
  for ns in /var/run/netns/cni-*; do [ -e "$ns" ] && { ip netns delete "${ns##*/}" 2>/dev/null || true; }; done
  grep -oE " ($DIR|$STATE)/[^ ]*" /proc/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
  net_down
  rm -rf "$DIR" "$STATE"
  log "stopped"
}

cmd_status() {
  local s=0 p
  for p in registry containerd etcd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kube-router; do
    [ "$p" = kube-router ] && [ "$NETWORK_POLICIES" = 0 ] && continue
    if alive "$p"; then echo "$p running (pid $(cat "$(pidf "$p")"))"; else echo "$p stopped"; s=1; fi
  done
  [ $s -eq 0 ] && kc get nodes -o wide
  return $s
}


case "${1:-}" in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  exec) shift; KUBECONFIG="$KUBECONFIG_FILE" in_ns "$@" ;;
  push) shift; push_images "$@" ;;
  *) sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
