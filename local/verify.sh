#!/usr/bin/env bash
# The verifier of coupon events (local/verifier/): local/verify.sh SUBCOMMAND [options];
# `local/verify.sh --help` lists the subcommands. Runs on the pinned dependencies of
# local/verifier/requirements.txt in .tools/venv/verifier, created on first use.
set -euo pipefail
LOCAL_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$LOCAL_DIR/verifier/venv.sh"
python=$(venv_python verifier "$LOCAL_DIR/verifier/requirements.txt")
exec "$python" -m verifier "$@"
