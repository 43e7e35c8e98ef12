#!/usr/bin/env bash
# Installs or upgrades the once-per-cluster platform: the cluster objects in k8s/ (PriorityClasses,
# the gp3 StorageClass), then kube-prometheus-stack, Strimzi, KEDA, k6-operator, the Cluster
# Autoscaler, metrics-server (EKS installs none: the CPU-based HPAs read it) and the AWS Load
# Balancer Controller (an ALB for an event's Ingress), each at the chart
# version pinned in versions.env with the values in values/<release>.yaml, and last the events'
# dashboards and rules (monitoring.sh), once for every event. Idempotent.
#
#   operators/install.sh            install or upgrade everything (current kubectl context)
#   operators/install.sh --print    only print the commands it would run
#   operators/install.sh keda       only the named releases (coupon-event-monitoring: the dashboards
#                                   and rules)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
HELM=${HELM:-helm}
KUBECTL=${KUBECTL:-kubectl}
TIMEOUT=${TIMEOUT:-10m}

print=0
only=()
for arg in "$@"; do
  case "$arg" in
    --print) print=1 ;;
    -h|--help) sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "unknown option: $arg" >&2; exit 2 ;;
    *) only+=("$arg") ;;
  esac
done

run() {
  if [ "$print" = 1 ]; then printf '%q ' "$@"; echo; else echo "+ $*" >&2; "$@"; fi
}

wanted() {
  [ ${#only[@]} -eq 0 ] && return 0
  local o; for o in "${only[@]}"; do [ "$o" = "$1" ] && return 0; done; return 1
}

# Cluster-wide objects first: the operators' pods use the PriorityClasses, Prometheus the gp3 class.
if [ ${#only[@]} -eq 0 ]; then
  run "$KUBECTL" apply --server-side --field-manager=coupon-event-platform \
    -f "$ROOT/k8s/priorityclasses.yaml" -f "$ROOT/k8s/storageclass-gp3.yaml"
fi

# versions.env order matters: kube-prometheus-stack brings the ServiceMonitor CRD that the KEDA and
# k6-operator releases then use.
while IFS='|' read -r name namespace chart version repo; do
  case "$name" in ''|'#'*) continue ;; esac
  wanted "$name" || continue
  run "$HELM" upgrade --install "$name" "$chart" \
    --repo "$repo" --version "$version" \
    --namespace "$namespace" --create-namespace \
    --values "$HERE/values/$name.yaml" \
    --wait --timeout "$TIMEOUT"
done < "$HERE/versions.env"

# The events' dashboards and rules, once per cluster, after kube-prometheus-stack (its PrometheusRule
# CRD).
if wanted coupon-event-monitoring; then
  if [ "$print" = 1 ]; then
    printf '%q | %q apply --server-side --field-manager=coupon-event-platform -f -\n' "$HERE/monitoring.sh" "$KUBECTL"
  else
    echo "+ $HERE/monitoring.sh | $KUBECTL apply --server-side -f -" >&2
    "$HERE/monitoring.sh" | "$KUBECTL" apply --server-side --field-manager=coupon-event-platform -f -
  fi
fi
