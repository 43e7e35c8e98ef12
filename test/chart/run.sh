#!/usr/bin/env bash
# Runs the platform test suites with pinned Python dependencies.
#   test/chart/run.sh schemas     platform-schemas: upstream JSON schemas and key lists (no server)
#   test/chart/run.sh apiserver   chart-apiserver: a real etcd + kube-apiserver, CRDs, helm actions
# Extra arguments go to pytest (e.g. -k upgrade). Every process started here is stopped on exit.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/test/chart"
VENV="${PLATFORM_VENV:-$ROOT/.tools/venv/platform}"
cd "$ROOT"

ensure_venv() {
  local stamp="$VENV/.requirements"
  mkdir -p "$ROOT/.tools/locks"
  (
    flock 9
    if [ -x "$VENV/bin/python" ] && cmp -s "$HERE/requirements.txt" "$stamp"; then exit 0; fi
    echo "[platform] creating $VENV" >&2
    rm -rf "$VENV"
    # System site-packages visible: pins the interpreter already has are not downloaded again.
    python3 -m venv --without-pip --system-site-packages "$VENV"
    # The interpreter's own pip installs into the venv: no ensurepip bootstrap needed.
    python3 -m pip --python "$VENV/bin/python" install --quiet --disable-pip-version-check \
      -r "$HERE/requirements.txt"
    cp "$HERE/requirements.txt" "$stamp"
  ) 9>"$ROOT/.tools/locks/platform-venv.lock"
}

suite=${1:-}; shift || true
ensure_venv
export PATH="$ROOT/.tools/bin:$PATH"
PYTEST=("$VENV/bin/python" -m pytest -p no:cacheprovider -q --rootdir "$HERE" -c /dev/null)

case "$suite" in
  schemas)
    exec "${PYTEST[@]}" "$HERE/test_platform_schemas.py" "$@"
    ;;
  apiserver)
    "$ROOT/scripts/tools.sh" helm etcd kube-apiserver kubectl
    export APISERVER_DIR="${APISERVER_DIR:-$ROOT/.run/apiserver}"
    trap '"$HERE/apiserver.sh" down' EXIT INT TERM
    "$HERE/apiserver.sh" up
    eval "$("$HERE/apiserver.sh" env)"
    export APISERVER_READY_SECONDS="$(cat "$APISERVER_DIR/ready-seconds")"
    "${PYTEST[@]}" "$HERE"/test_apiserver*.py "$@"
    ;;
  *)
    sed -n '2,6p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
