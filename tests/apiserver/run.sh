#!/usr/bin/env bash
# make chart-apiserver: a real etcd + kube-apiserver (apiserver.sh), the chart installed, upgraded
# and uninstalled on it (test_apiserver.py), everything stopped on exit. Extra arguments go to
# pytest (e.g. -k upgrade).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
"$ROOT/scripts/tools.sh" helm etcd kube-apiserver kubectl crds
export APISERVER_DIR="${APISERVER_DIR:-$ROOT/.run/apiserver}"
trap '"$HERE/apiserver.sh" down' EXIT INT TERM
"$HERE/apiserver.sh" up
eval "$("$HERE/apiserver.sh" env)"
APISERVER_READY_SECONDS="$(cat "$APISERVER_DIR/ready-seconds")"
export APISERVER_READY_SECONDS
"$ROOT/tests/pytest.sh" "$HERE" "$@"
