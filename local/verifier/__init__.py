"""The verifier behind `make demo`, `make bench` and `make test-loadtests` (run as `local/verify.sh`).

Modules: `tokens` (HS256 JWTs), `settings` (where the harness listens), `harness` (the admin API,
MariaDB, the Kafka consumer group), `invariants` (the checks, as a table), `report` (the event
summary and the benchmark report), `machine` (CPU shares, host gauge), `cli` (the subcommands).
"""
