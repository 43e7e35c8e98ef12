#!/usr/bin/env bash
# kafka-server-start.sh SERVER.PROPERTIES: a broker/controller (kafka.Kafka), 1 GiB heap unless set.
set -e
export KAFKA_HEAP_OPTS=${KAFKA_HEAP_OPTS:--Xmx1G -Xms1G}
exec "$(dirname "$0")/kafka-run-class.sh" kafka.Kafka "$@"
