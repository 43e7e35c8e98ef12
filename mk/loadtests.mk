# Load tests (loadtests/), the one-command local event and the benchmark. Owner: loadtests.
.PHONY: test-loadtests demo bench

test-loadtests: ## lint the k6 scenarios, smoke-run each against the local stack and verify the invariants
	loadtests/smoke.sh

demo: ## a real coupon event here: build, start the stack, 10,000-VU k6 spike, verified summary (KEEP=1 keeps it up)
	local/demo.sh

bench: ## benchmark the whole path on this machine: build/bench/summary.json and summary.md
	local/bench.sh
