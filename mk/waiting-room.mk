# The waiting room (services/coupon-waiting-room, docs/waiting-room.md): its k6 scenario at small scale on
# a harness of its own, verified (order, one coupon per admitted user, sold-out propagation, ETA error).
WR_TEST_PORT_OFFSET ?= 300
WR_TEST_RUN_DIR ?= $(ROOT)/.run/waiting-room
WR_TEST_USERS ?= 400
WR_TEST_QUANTITY ?= 300
# At this scale few users wait 5 s or more (about 50), and the services have just started: their
# first admission steps run late while the JIT warms up. The 20 % ETA target is measured at scale
# (docs/waiting-room.md); here a looser bound still fails an estimate that is plainly wrong. The zone
# runs in mode auto here, so that the first 240 users are let straight in and the queue switches on
# after them (make demo switches its zone on).
WR_TEST_ETA_P90_MAX ?= 0.40

.PHONY: test-waiting-room
test-waiting-room: ## waiting room: build, start a harness (PORT_OFFSET 300), k6 waiting-room.js at small scale, verify; then the page in chromium on that stack (test-browser's suite); fails on a broken invariant
	rc=0; \
	PORT_OFFSET=$(WR_TEST_PORT_OFFSET) RUN_DIR=$(WR_TEST_RUN_DIR) OUT_DIR=$(ROOT)/build/waiting-room \
	  WAITING_ROOM=1 USERS=$(WR_TEST_USERS) QUANTITY=$(WR_TEST_QUANTITY) RAMP=5s WR_BUDGET=240 WR_SUB_WINDOW=2s \
	  WR_MODE=auto \
	  WR_ETA_P90_MAX=$(WR_TEST_ETA_P90_MAX) \
	  API_JAVA_OPTS="$${API_JAVA_OPTS:--Xms1g -Xmx1g -XX:+UseParallelGC}" \
	  KEEP=1 local/demo.sh || rc=$$?; \
	echo "==> the waiting-room page in chromium on the same stack (tests/browser)"; \
	PORT_OFFSET=$(WR_TEST_PORT_OFFSET) RUN_DIR=$(WR_TEST_RUN_DIR) tests/browser/run.sh || rc=1; \
	if [ "$${KEEP:-0}" != 1 ]; then \
	  PORT_OFFSET=$(WR_TEST_PORT_OFFSET) RUN_DIR=$(WR_TEST_RUN_DIR) local/services.sh down >/dev/null 2>&1 || true; \
	  PORT_OFFSET=$(WR_TEST_PORT_OFFSET) RUN_DIR=$(WR_TEST_RUN_DIR) local/infra.sh down >/dev/null 2>&1 || true; \
	fi; \
	exit $$rc

# The waiting-room page in a real browser (tests/browser) on a harness of its own; make test runs the
# same suite inside test-waiting-room, on that stage's stack (a second stack costs minutes to start).
BROWSER_TEST_PORT_OFFSET ?= 400
BROWSER_TEST_RUN_DIR ?= $(ROOT)/.run/browser

.PHONY: test-browser
test-browser: ## waiting-room page: Debian's chromium via Playwright joins behind a k6 queue, gets a coupon (and a sold-out run); screenshots in build/browser/
	PORT_OFFSET=$(BROWSER_TEST_PORT_OFFSET) RUN_DIR=$(BROWSER_TEST_RUN_DIR) tests/browser/run.sh
