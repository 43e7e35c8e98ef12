#!/usr/bin/env bash
# local/bench/ladder.sh [options]: the capacity ladder (local/bench/ladder.py, --help lists the
# options) on the verifier's pinned Python, against the harness of PORT_OFFSET / RUN_DIR.
set -euo pipefail
BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LOCAL_DIR="$(cd "$BENCH_DIR/.." && pwd)"
source "$LOCAL_DIR/verifier/venv.sh"
python=$(venv_python verifier "$LOCAL_DIR/verifier/requirements.txt")
exec "$python" "$BENCH_DIR/ladder.py" "$@"
