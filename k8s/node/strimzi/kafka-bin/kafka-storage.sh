#!/usr/bin/env bash
# kafka-storage.sh format|info|...: Kafka's storage tool (KRaft log directories).
exec "$(dirname "$0")/kafka-run-class.sh" kafka.tools.StorageTool "$@"
