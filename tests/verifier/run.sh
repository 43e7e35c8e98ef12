#!/usr/bin/env bash
# make test-verifier: unit tests of the verifier's pure parts (tokens, invariants, reports, command
# line); no harness needed. Extra arguments go to pytest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/local/verifier/venv.sh"
python=$(venv_python tests "$ROOT/tests/requirements.txt")
PYTHONDONTWRITEBYTECODE=1 exec "$python" -m pytest -p no:cacheprovider -q --rootdir "$ROOT/tests/verifier" \
  -c /dev/null "$ROOT/tests/verifier" "$@"
