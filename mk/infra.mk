# Local infrastructure harness (local/README.md): Redis Cluster, 3-node KRaft Kafka, MariaDB, and
# the two services as processes. PORT_OFFSET and RUN_DIR pass through from the environment.
.PHONY: infra-up infra-down infra-status infra-reset services-up services-down services-status

infra-up: ## start Redis Cluster, Kafka (3 KRaft nodes, topics) and MariaDB on 127.0.0.1; idempotent
	local/infra.sh up

infra-down: ## stop everything infra-up started (by PID)
	local/infra.sh down

infra-status: ## PIDs, memory and health of the harness processes
	local/infra.sh status

infra-reset: ## stop the services, empty the coupon database, both topics and Redis (make demo and make bench do it first)
	local/infra.sh reset

services-up: ## start coupon-api, coupon-consumer and coupon-waiting-room from their built jars against the harness; waits for readiness
	local/services.sh up

services-down: ## stop the services (SIGTERM, then SIGKILL after a timeout)
	local/services.sh down

services-status: ## PIDs and readiness of the services
	local/services.sh status
