# coupon-event — the two commands a newcomer needs:
#   make demo   a real coupon event on this machine (infra, services, k6 spike, verified summary)
#   make test   every test suite (what .ci/run calls)
# Each area keeps its targets in mk/<area>.mk; `make help` lists them.
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
ROOT := $(CURDIR)
# A JDK 25, found rather than assumed: JAVA_HOME if set, else the first under /usr/lib/jvm.
JAVA_HOME ?= $(firstword $(wildcard /usr/lib/jvm/temurin-25-jdk*) $(wildcard /usr/lib/jvm/*-25-*) $(wildcard /usr/lib/jvm/*25*))
ifeq ($(wildcard $(JAVA_HOME)/bin/javac),)
$(error no JDK 25 found: install one (Temurin 25 or Debian's openjdk-25-jdk) or set JAVA_HOME)
endif
export JAVA_HOME
export PATH := $(ROOT)/.tools/bin:$(JAVA_HOME)/bin:$(PATH)
.DEFAULT_GOAL := help

include $(sort $(wildcard mk/*.mk))

.PHONY: help test
help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | sort | awk -F':.*## ' '{printf "  %-22s %s\n", $$1, $$2}'

test: ## install pinned tools, build, and run every suite (chart, services, observability, load tests)
	@scripts/test.sh
