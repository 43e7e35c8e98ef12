# The waiting room (services/coupon-waiting-room, docs/waiting-room.md): its k6 scenario at small scale on
# a harness of its own, verified (order, one coupon per admitted user, sold-out propagation, ETA error).
WR_TEST_PORT_OFFSET ?= 300
WR_TEST_RUN_DIR ?= $(ROOT)/.run/waiting-room
WR_TEST_USERS ?= 400
WR_TEST_QUANTITY ?= 300

.PHONY: test-waiting-room
test-waiting-room: ## waiting room: build, start a harness (PORT_OFFSET 300), k6 waiting-room.js at small scale, verify; fails on a broken invariant
	PORT_OFFSET=$(WR_TEST_PORT_OFFSET) RUN_DIR=$(WR_TEST_RUN_DIR) OUT_DIR=$(ROOT)/build/waiting-room \
	  WAITING_ROOM=1 USERS=$(WR_TEST_USERS) QUANTITY=$(WR_TEST_QUANTITY) RAMP=5s WR_BUDGET=240 WR_SUB_WINDOW=2s \
	  API_JAVA_OPTS="$${API_JAVA_OPTS:--Xms1g -Xmx1g -XX:+UseParallelGC}" \
	  local/demo.sh
