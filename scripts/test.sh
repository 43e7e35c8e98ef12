#!/usr/bin/env bash
# The whole test suite, stage by stage; every stage runs even if an earlier one failed, and every
# process the stages start is stopped on the way out. Select stages with STAGES="a b".
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
STAGES=${STAGES:-"tools build test-chart test-services test-observability test-loadtests test-waiting-room test-faults-short test-cluster"}
mkdir -p build
cleanup() {
  [ -x local/services.sh ] && local/services.sh down >/dev/null 2>&1
  [ -x local/infra.sh ] && local/infra.sh down >/dev/null 2>&1
  [ -d .run/cluster ] && make --no-print-directory cluster-down >/dev/null 2>&1
  true
}
trap cleanup EXIT INT TERM

declare -A result seconds
failed=0
for stage in $STAGES; do
  echo
  echo "================================================================ $stage"
  start=$(date +%s)
  if make --no-print-directory "$stage"; then result[$stage]=PASS; else result[$stage]=FAIL; failed=$((failed + 1)); fi
  seconds[$stage]=$(( $(date +%s) - start ))
  # A failed tools or build stage makes the rest meaningless.
  if [ "${result[$stage]}" = FAIL ] && { [ "$stage" = tools ] || [ "$stage" = build ]; }; then break; fi
done

echo
echo "================================================================ summary"
for stage in $STAGES; do
  printf '  %-22s %-5s %5ss\n' "$stage" "${result[$stage]:-SKIP}" "${seconds[$stage]:-0}"
done
[ "$failed" -eq 0 ] && echo "ALL STAGES PASSED" || echo "$failed STAGE(S) FAILED"
exit $(( failed > 0 ))
