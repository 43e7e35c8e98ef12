#!/usr/bin/env bash
# Renders the coupon events' dashboards and alert/recording rules, installed once per cluster beside
# kube-prometheus-stack (install.sh applies them): one ConfigMap per dashboards/*.json, labelled for
# Grafana's dashboard sidecar, and one PrometheusRule holding the groups of monitoring/rules/*.yaml.
# Every event's metrics carry its namespace and every rule aggregates by it, so one copy serves all
# events; a copy per release would write the same sidecar files (uninstalling one event would remove
# everyone's dashboards) and evaluate the same groups once per event.
#
#   operators/monitoring.sh | kubectl apply --server-side -f -
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
# The namespace and release of kube-prometheus-stack in versions.env: its Prometheus selects rules by
# the release label, and the dashboards sit beside its Grafana.
IFS='|' read -r PROM_RELEASE NAMESPACE _ < <(grep '^kube-prometheus-stack|' "$HERE/versions.env")

labels() {
  cat <<YAML
  labels:
    app.kubernetes.io/part-of: coupon-event
    app.kubernetes.io/component: monitoring
    app.kubernetes.io/managed-by: coupon-event-platform
YAML
}

for f in "$ROOT"/dashboards/*.json; do
  name=$(basename "$f" .json)
  printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: coupon-event-dashboard-%s\n  namespace: %s\n' \
    "$name" "$NAMESPACE"
  labels
  printf '    grafana_dashboard: "1"\ndata:\n  %s.json: |-\n' "$name"
  sed 's/^/    /' "$f"
done

printf -- '---\napiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata:\n  name: coupon-event-rules\n  namespace: %s\n' \
  "$NAMESPACE"
labels
printf '    release: %s\nspec:\n  groups:\n' "$PROM_RELEASE"
for f in "$ROOT"/monitoring/rules/*.yaml; do
  # Each file is one `groups:` document: its list, indented under spec.
  sed -n '/^groups:/,$p' "$f" | tail -n +2 | sed 's/^/  /'
done
