# Load tests (loadtests/), their verifier (local/verifier/), the one-command local event and the benchmark.
.PHONY: test-loadtests test-verifier test-bench demo bench

test-verifier: ## unit tests of the verifier: JWT vector, invariant table, reports, command line (no harness)
	tests/pytest.sh tests/verifier

test-bench: ## unit tests of make bench's logic (local/bench/: ladder search, summary, JFR shares; no harness)
	tests/pytest.sh tests/loadtests

test-loadtests: test-verifier test-bench ## the verifier's and the bench's unit tests, then lint the k6 scenarios, smoke-run each against the local stack and verify the invariants
	tests/loadtests/smoke.sh

demo: ## a real coupon event here: build, start the stack, 10,000-VU k6 spike, verified summary (KEEP=1 keeps it up)
	local/demo.sh

bench: ## capacity ladder (capacity_rps, CPU µs per request per component), spike, sold-out storm: build/bench/summary.json and summary.md
	local/bench.sh
