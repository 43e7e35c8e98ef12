# Faults under load (tests/faults/, docs/reliability.md): fault scenarios under k6 load on a
# harness of their own (FAULTS_PORT_OFFSET 2000, FAULTS_RUN_DIR .run/infra-faults), each checked by the
# verifier; then bad input (hypothesis) and secrets in logs. Needs the service jars (make build).
.PHONY: test-faults test-faults-short

test-faults: ## the fault scenarios under load + bad input + secrets in logs (FAULTS=short|long|NAME,...; ~15 min)
	tests/faults/run.sh

test-faults-short: ## the short fault scenarios only, plus bad input and secrets in logs (~11 min)
	FAULTS=short tests/faults/run.sh
