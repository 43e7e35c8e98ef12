#!/usr/bin/env bash
# Runs one pytest suite folder under tests/ with pinned dependencies: tests/requirements.txt plus the
# suite's own requirements.txt if it has one (a venv per distinct list, local/verifier/venv.sh), and
# tests/kube.py loaded as a plugin.
# Usage: tests/pytest.sh SUITE_DIR [pytest args]   e.g. tests/pytest.sh tests/platform -k eksctl
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
[ $# -gt 0 ] || { sed -n '2,5p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2; }
suite="$(cd "$1" && pwd)"; shift

source "$ROOT/local/verifier/venv.sh"
reqs=("$HERE/requirements.txt") venv=tests
if [ -f "$suite/requirements.txt" ]; then reqs+=("$suite/requirements.txt"); venv="tests-$(basename "$suite")"; fi
python=$(venv_python "$venv" "${reqs[@]}")

cd "$ROOT"
export PATH="$ROOT/.tools/bin:$PATH" PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1
exec "$python" -m pytest -p no:cacheprovider -p kube -q --rootdir "$suite" -c /dev/null "$suite" "$@"
