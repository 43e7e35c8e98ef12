# services: Maven multi-module build (coupon-common, coupon-api, coupon-consumer, coupon-it).
# The integration tests talk to the real harness started by local/infra.sh on SERVICES_PORT_OFFSET.
SERVICES_PORT_OFFSET ?= $(or $(PORT_OFFSET),0)
SERVICES_RUN_DIR ?= $(or $(RUN_DIR),$(ROOT)/.run/infra)
MVNW := cd $(ROOT)/services && ./mvnw -B

.PHONY: build test-services services-it
build: ## compile and package the three services (no tests); prints the jars
	$(MVNW) -q -DskipTests package
	@ls -l $(ROOT)/services/coupon-*/target/coupon-*.jar

# REQUIRE_HARNESS=1: a @RequiresHarness test fails, rather than skips, when the harness does not answer.
test-services: ## start the local harness (idempotent) and run every services test against it
	PORT_OFFSET=$(SERVICES_PORT_OFFSET) RUN_DIR=$(SERVICES_RUN_DIR) $(ROOT)/local/infra.sh up
	eval "$$(PORT_OFFSET=$(SERVICES_PORT_OFFSET) RUN_DIR=$(SERVICES_RUN_DIR) $(ROOT)/local/infra.sh env)" && \
	  export PORT_OFFSET=$(SERVICES_PORT_OFFSET) RUN_DIR=$(SERVICES_RUN_DIR) REQUIRE_HARNESS=1 && \
	  $(MVNW) -fae verify
