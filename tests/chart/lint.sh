#!/usr/bin/env bash
# helm lint --strict and helm template for every scenario, the rendered custom resources checked
# against the operators' CRD schemas, and the values the chart must refuse.
# Usage: tests/chart/lint.sh CHART_DIR name=values.yaml[,more.yaml] ...
#   CHART_DIR is the offline copy (tests/chart/offline-chart.sh); values paths are relative to the
#   repository and go on top of tests/chart/fixtures/offline-external.yaml.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CHART=$1; shift
OUT="$ROOT/build/chart/rendered"
# The operators' CRDs (scripts/tools.sh crds: KEDA's and prometheus-operator's from their pinned Go
# modules, the others from ../shared), or CRDS_DIR; Bitnami's values schema from ../shared.
SHARED="${SHARED_DIR:-$ROOT/../shared}"
if [ -z "${CRDS_DIR:-}" ]; then "$ROOT/scripts/tools.sh" crds || exit 1; fi
CRDS="${CRDS_DIR:-$ROOT/.tools/crds}"
[ -d "$CRDS" ] || { echo "FAIL the operators' CRDs are not at $CRDS (CRDS_DIR)"; exit 1; }
MYSQL_SCHEMA="$SHARED/schemas/helm-values/mysql-14.0.5.values.schema.json"
[ -f "$MYSQL_SCHEMA" ] || { echo "FAIL $MYSQL_SCHEMA missing: put shared/ beside the checkout, or set SHARED_DIR"; exit 1; }
rm -rf "$OUT"; mkdir -p "$OUT"
fail=0; n=0
base=(-f "$HERE/fixtures/offline-external.yaml")

for scenario in "$@"; do
  name=${scenario%%=*}; files=${scenario#*=}
  args=("${base[@]}")
  IFS=, read -ra extra <<< "$files"
  for f in "${extra[@]}"; do [ -n "$f" ] && args+=(-f "$ROOT/$f"); done
  n=$((n + 1))
  if ! lint=$(helm lint --strict "$CHART" "${args[@]}" 2>&1); then
    echo "FAIL lint $name"; echo "$lint" | sed 's/^/    /'; fail=$((fail + 1)); continue
  fi
  if ! helm template "ev-$name" "$CHART" --namespace "ev-$name" "${args[@]}" > "$OUT/$name.yaml" 2> "$OUT/$name.err"; then
    echo "FAIL template $name"; sed 's/^/    /' "$OUT/$name.err"; fail=$((fail + 1)); continue
  fi
  echo "ok   lint+template $name ($(grep -c '^kind:' "$OUT/$name.yaml") objects)"
done

# Switches that drop a part of the release, given as --set flags (name, flags...).
switch_scenario() {
  local name=$1; shift
  n=$((n + 1))
  local out
  if ! out=$(helm lint --strict "$CHART" "${base[@]}" "$@" 2>&1); then
    echo "FAIL lint $name"; echo "$out" | sed 's/^/    /'; fail=$((fail + 1)); return
  fi
  if ! helm template "ev-$name" "$CHART" --namespace "ev-$name" "${base[@]}" "$@" > "$OUT/$name.yaml" 2> "$OUT/$name.err"; then
    echo "FAIL template $name"; sed 's/^/    /' "$OUT/$name.err"; fail=$((fail + 1)); return
  fi
  echo "ok   lint+template $name ($(grep -c '^kind:' "$OUT/$name.yaml") objects)"
}
# Consumers outside the release (persistence run elsewhere): no consumer values reach the umbrella.
switch_scenario no-consumer --set couponConsumer.enabled=false --set kafka.topic.partitions=12 \
  --set loadtest.enabled=true
# An event without the waiting room (the API alone meets a spike): still a whole event.
switch_scenario no-waiting-room --set couponWaitingRoom.enabled=false --set loadtest.enabled=true
# The opt-out layout (kafka.strimzi.controllers.dedicated=false): one pool dual-role.
switch_scenario dual-role-kafka --set kafka.strimzi.controllers.dedicated=false

# Checks that print one "ok   ..." or "FAIL ..." line each.
counted() {
  local out
  out=$("$@") || true
  echo "$out"
  n=$((n + $(grep -cE '^(ok  |FAIL)' <<< "$out" || true)))
  fail=$((fail + $(grep -c '^FAIL' <<< "$out" || true)))
}

# The examples' golden renders (tests/chart/golden/, refreshed by make chart-golden).
counted python3 "$HERE/golden.py" check "$CHART"

# The services' defaults (application.yaml) are the chart's defaults: what the default render sets.
[ -f "$OUT/defaults.yaml" ] && counted python3 "$HERE/defaults_contract.py" "$OUT/defaults.yaml"

# Every values key described in the schema, and docs/values.md generated from it.
counted python3 "$HERE/values_doc.py" check

# Every rendered custom resource against the CRD it targets (unknown fields are errors too).
if ! python3 "$HERE/validate_rendered.py" "$CRDS" "$OUT"/*.yaml; then fail=$((fail + 1)); fi

# A registry mirror reaches every image the release renders (hooks, helm test and k6 included).
if [ -f "$OUT/mirror.yaml" ]; then
  n=$((n + 1))
  mirror=$(python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["global"]["imageRegistry"])' \
    "$HERE/fixtures/mirror.yaml")
  images=$(grep -hE '^\s*(- )?image: ' "$OUT/mirror.yaml" | sed -E 's/^\s*(- )?image: "?([^"]*)"?/\2/' | sort -u)
  others=$(grep -v "^$mirror/" <<< "$images" || true)
  if [ -z "$images" ] || [ -n "$others" ]; then
    echo "FAIL images outside the mirror $mirror:"; echo "${others:-no images rendered}" | sed 's/^/    /'; fail=$((fail + 1))
  else
    echo "ok   every image from the mirror ($(wc -l <<< "$images") images)"
  fi
fi

# The bundled MySQL's values against the Bitnami mysql 14.0.5 values schema.
if [ -f "$MYSQL_SCHEMA" ]; then
  if python3 - "$MYSQL_SCHEMA" "$ROOT/values.yaml" "$ROOT"/examples/*.yaml "$HERE"/fixtures/*.yaml <<'PY'
import json, sys, yaml, jsonschema
schema = json.load(open(sys.argv[1]))
base = yaml.safe_load(open(sys.argv[2]))["mysql"]
for path in sys.argv[3:]:
    values = dict(base)
    values.update((yaml.safe_load(open(path)) or {}).get("mysql", {}))
    jsonschema.Draft7Validator(schema).validate(values)
print("ok   mysql values valid against mysql-14.0.5.values.schema.json")
PY
  then :; else echo "FAIL mysql values schema"; fail=$((fail + 1)); fi
fi

# Upgrade instructions the chart ships (NOTES, examples, docs) use --reset-then-reuse-values: plain
# --reuse-values takes the previous chart's defaults too, so new defaults never apply (Helm's
# helm_upgrade docs). tests/apiserver runs the documented command for real.
n=$((n + 1))
stale=$(grep -nE 'helm upgrade.*--reuse-values' "$CHART/templates/NOTES.txt" "$CHART"/examples/*.yaml "$ROOT"/docs/*.md || true)
if [ -n "$stale" ] || ! grep -q -- '--reset-then-reuse-values' "$CHART/templates/NOTES.txt"; then
  echo "FAIL upgrade instructions with --reuse-values (or NOTES without --reset-then-reuse-values):"
  echo "${stale:-NOTES.txt}" | sed 's/^/    /'; fail=$((fail + 1))
else
  echo "ok   upgrade instructions use --reset-then-reuse-values"
fi

# Values the chart must refuse, and the message that says why.
must_fail() {
  local what=$1 expect=$2; shift 2
  n=$((n + 1))
  local out
  if out=$(helm template ev "$CHART" "${base[@]}" "$@" 2>&1); then
    echo "FAIL accepted: $what"; fail=$((fail + 1))
  elif ! grep -qiE -- "$expect" <<< "$out"; then
    echo "FAIL $what: error does not mention /$expect/:"; echo "$out" | tail -3 | sed 's/^/    /'; fail=$((fail + 1))
  else
    echo "ok   refuses $what"
  fi
}
must_fail "a misspelled top-level key" "additional properties 'evnet' not allowed|evnet" --set evnet.coupons=1
must_fail "a misspelled component key" "replicaCont" --set couponApi.replicaCont=3
must_fail "a misspelled Kafka key" "partitons" --set kafka.topic.partitons=12
must_fail "a misspelled key in a shared shape (\$defs)" "cpus" --set couponConsumer.resources.requests.cpus=1
must_fail "a wrong type" "partitions|integer" --set-string kafka.topic.partitions=twelve
must_fail "partitions below max replicas x concurrency" "below couponConsumer max replicas x concurrency" \
  --set kafka.topic.partitions=6 --set couponConsumer.autoscaling.maxReplicas=4 --set couponConsumer.concurrency=3
must_fail "minReplicas above maxReplicas" "minReplicas must not exceed" \
  --set couponConsumer.autoscaling.minReplicas=5 --set couponConsumer.autoscaling.maxReplicas=4
must_fail "both bundled and external MySQL" "pick the bundled MySQL" --set mysql.enabled=true
must_fail "no Redis at all" "no Redis" --set global.externalRedis.nodes=null
must_fail "an external database without credentials" "needs existingSecret" --set global.externalDatabase.existingSecret=
must_fail "an event without coupons" "coupons" --set event.coupons=null
must_fail "a quantity above the services' bound" "maximum|10000000|10,000,000" \
  --set 'event.coupons[0].id=1' --set 'event.coupons[0].name=huge' --set 'event.coupons[0].quantity=10000001' \
  --set 'event.coupons[0].opensAt=2026-12-01T10:00:00Z' --set 'event.coupons[0].closesAt=2026-12-01T22:00:00Z'
must_fail "a coupon closing before it opens" "closesAt must be after opensAt" \
  --set 'event.coupons[0].id=1' --set 'event.coupons[0].name=backwards' --set 'event.coupons[0].quantity=10' \
  --set 'event.coupons[0].opensAt=2026-12-01T10:00:00Z' --set 'event.coupons[0].closesAt=2026-11-30T00:00:00Z'
must_fail "a closing duration of zero" "is no time at all" \
  --set 'event.coupons[0].id=1' --set 'event.coupons[0].name=zero' --set 'event.coupons[0].quantity=10' \
  --set 'event.coupons[0].closesAt=PT0S'
must_fail "a closing that is neither an instant nor an ISO-8601 duration" "closesAt" \
  --set 'event.coupons[0].id=1' --set 'event.coupons[0].name=vague' --set 'event.coupons[0].quantity=10' \
  --set 'event.coupons[0].closesAt=2h'
must_fail "a coupon closing the moment it opens" "closesAt must be after opensAt" \
  --set 'event.coupons[0].id=1' --set 'event.coupons[0].name=backwards' --set 'event.coupons[0].quantity=10' \
  --set 'event.coupons[0].opensAt=2026-12-01T10:00:00Z' --set 'event.coupons[0].closesAt=2026-12-01T10:00:00Z'
must_fail "a load test script that is not shipped" "not one of loadtests" \
  --set loadtest.enabled=true --set loadtest.script=nope.js
must_fail "min.insync.replicas equal to the replication factor" "minInsyncReplicas" --set kafka.topic.minInsyncReplicas=3
must_fail "an even number of KRaft controllers" "controllers/replicas.*one of 1, 3, 5" \
  --set kafka.strimzi.controllers.replicas=4
must_fail "an even number of KRaft controllers past the schema" "odd number of controllers" \
  --skip-schema-validation --set kafka.strimzi.controllers.replicas=4
must_fail "no consumer and no partition count" "set kafka.topic.partitions" --set couponConsumer.enabled=false
must_fail "an event without the API" "hooks run the coupon-api image" --set couponApi.enabled=false
must_fail "a misspelled waiting-room zone key" "budgetPerMinut" \
  --set couponWaitingRoom.zones.main.budgetPerMinut=10
must_fail "a waiting-room mode that does not exist" "mode" --set couponWaitingRoom.defaults.mode=sometimes
must_fail "a waiting-room zone named like a coupon's own zone" "coupon-1" --set "couponWaitingRoom.zones.coupon-1.coupons={1}"
must_fail "a waiting-room Redis password without its own Redis" "apply to couponWaitingRoom.redis.nodes" \
  --set couponWaitingRoom.redis.existingSecret=wr-redis
must_fail "batches that hold a rebalance for minutes under the write cap" "maxPollRecords x concurrency / maxInsertsPerSecond" \
  --set couponConsumer.maxInsertsPerSecond=10
n=$((n + 1))
if helm template ev "$CHART" "${base[@]}" --set couponConsumer.maxInsertsPerSecond=10 \
    --set couponConsumer.maxPollRecords=100 >/dev/null 2>&1; then
  echo "ok   accepts a write cap with batches that end within 30 s"
else
  echo "FAIL refused a write cap with batches that end within 30 s"; fail=$((fail + 1))
fi

echo "chart-lint: $((n - fail))/$n checks passed"
[ "$fail" -eq 0 ]
