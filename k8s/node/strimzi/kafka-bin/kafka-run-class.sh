#!/usr/bin/env bash
# The Kafka image's launcher (k8s/node/platform.sh): Kafka's jars come from Maven Central, not from
# its distribution, so the image carries these few launchers in place of the distribution's bin/.
# Runs CLASS with the JVM options Strimzi's scripts and pod environment set.
#   kafka-run-class.sh CLASS [ARGS...]
set -e
base=$(cd "$(dirname "$0")/.." && pwd)
: "${KAFKA_JVM_PERFORMANCE_OPTS:=-server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true}"
# shellcheck disable=SC2086  # the option variables are word lists
exec java ${KAFKA_HEAP_OPTS:--Xmx256m} $KAFKA_JVM_PERFORMANCE_OPTS $KAFKA_GC_LOG_OPTS $KAFKA_JMX_OPTS \
  $KAFKA_LOG4J_OPTS $KAFKA_OPTS -cp "$base/libs/*" "$@"
