#!/usr/bin/env bash
# Prints the path of a copy of the chart that renders without network access: identical to the
# repository's chart except that Chart.yaml lists no Bitnami dependencies (redis-cluster, mysql).
# Helm refuses to render or install a chart whose declared dependencies are missing from charts/,
# whatever their `condition` says, and the Bitnami charts can only be fetched from their OCI
# registry. With redis-cluster.enabled=false and mysql.enabled=false (tests/chart/fixtures/
# offline-external.yaml) the two charts contribute nothing, so the copy renders exactly what the real
# chart renders.
# Usage: tests/chart/offline-chart.sh [DEST]   (default build/chart/coupon-event)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DEST="${1:-$ROOT/build/chart/coupon-event}"
rm -rf "$DEST"
mkdir -p "$DEST"
cd "$ROOT"
# What the chart consists of (see .helmignore) plus its tests (helm-unittest looks for them inside
# the chart) and the values files they use.
for p in Chart.yaml values.yaml values.schema.json .helmignore templates charts tests/chart examples loadtests; do
  [ -e "$p" ] || continue
  mkdir -p "$DEST/$(dirname "$p")"
  cp -R "$p" "$DEST/$p"
done
python3 - "$DEST/Chart.yaml" <<'PY'
import sys, yaml
path = sys.argv[1]
chart = yaml.safe_load(open(path))
remote = {"redis-cluster", "mysql"}
chart["dependencies"] = [d for d in chart.get("dependencies", []) if d["name"] not in remote]
yaml.safe_dump(chart, open(path, "w"), sort_keys=False)
PY
echo "$DEST"
