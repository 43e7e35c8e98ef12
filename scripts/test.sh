#!/usr/bin/env bash
# The whole test suite, stage by stage; every stage runs even if an earlier one failed, and every
# process the stages start is stopped on the way out. Select stages with STAGES="a b".
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1
STAGES=${STAGES:-"tools build lint test-chart test-services test-observability test-loadtests test-waiting-room test-faults-short test-cluster"}
mkdir -p build
cleanup() {
  stop_background
  [ -x local/services.sh ] && local/services.sh down >/dev/null 2>&1
  [ -x local/infra.sh ] && local/infra.sh down >/dev/null 2>&1
  [ -d .run/cluster ] && make --no-print-directory cluster-down >/dev/null 2>&1
  true
}
trap cleanup EXIT
# Interrupted (Ctrl-C, or CI's time limit): stop here; the EXIT trap cleans up. A trap that only
# cleaned up would let the loop go on to the next stage.
trap 'exit 130' INT
trap 'exit 143' TERM

# The node's own Go tools (scripts/tools.sh node-go), Strimzi (Maven) and skaffold take minutes to
# build where nothing is cached. Only test-cluster needs them, so they build from the start in the CPU
# time and disk the other stages leave idle (SCHED_IDLE and the idle I/O class: any other task goes
# first), in two chains so that one's downloads and links leave the CPU to the other's compiles.
# Skaffold comes last: test-cluster needs it only for its last file (tests/cluster/run.sh), so it must
# not take CPU time from the tools the node needs to start. Each tool builds under its own lock, so
# test-cluster's `tools.sh node` takes over whatever is left, or finds it built.
background=()
if [[ " $STAGES " == *" test-cluster "* ]] && [ "${TOOLS_BACKGROUND:-1}" = 1 ] && command -v chrt >/dev/null; then
  for chain in "node-go skaffold" "strimzi"; do
    # shellcheck disable=SC2086 # a chain is a list of tools
    chrt --idle 0 ionice -c 3 setsid scripts/tools.sh $chain > "build/node-tools-${chain%% *}.log" 2>&1 &
    background+=("$!")
    echo "building the node's tools ($chain) in idle CPU time (pid $!, log build/node-tools-${chain%% *}.log)"
  done
fi
stop_background() {
  local pid
  for pid in "${background[@]}"; do kill -- "-$pid" 2>/dev/null || true; done
}

# The stages from test-services to test-loadtests share the default harness (.run/infra) and leave it
# up for the next; the later stages bring up their own (the waiting room's, the faults', the node's).
# Six idle Kafka JVMs, nine Redis nodes and MariaDB left running beside them cost a tenth of a core
# for nothing, and noise in the fault scenarios' timings.
OWN_HARNESS=" test-waiting-room test-faults-short test-faults test-cluster "

declare -A result seconds
failed=0
for stage in $STAGES; do
  echo
  echo "================================================================ $stage"
  if [[ "$OWN_HARNESS" == *" $stage "* ]] && [ -d .run/infra ]; then
    local/services.sh down >/dev/null 2>&1
    local/infra.sh down >/dev/null 2>&1
  fi
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
