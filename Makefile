# coupon-event — the two commands a newcomer needs:
#   make demo   a real coupon event on this machine (infra, services, k6 spike, verified summary)
#   make test   every test suite (what .ci/run calls)
# Each area keeps its targets in mk/<area>.mk; `make help` lists them.
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
ROOT := $(CURDIR)
export JAVA_HOME ?= /usr/lib/jvm/temurin-25-jdk-amd64
export PATH := $(ROOT)/.tools/bin:$(JAVA_HOME)/bin:$(PATH)
.DEFAULT_GOAL := help

include $(sort $(wildcard mk/*.mk))

.PHONY: help test
help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | sort | awk -F':.*## ' '{printf "  %-22s %s\n", $$1, $$2}'

test: ## install pinned tools, build, and run every suite (chart, services, observability, load tests)
	@scripts/test.sh
