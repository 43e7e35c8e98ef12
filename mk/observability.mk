# Observability: alert rules, dashboards, local Prometheus (monitoring/README.md).
.PHONY: test-observability dashboards prometheus-up prometheus-down

test-observability: ## promtool check + unit tests of the alert rules, dashboard checks, metric names against the running services
	tests/observability/run.sh

dashboards: ## regenerate dashboards/*.json from monitoring/checks/build_dashboards.py
	python3 monitoring/checks/build_dashboards.py

prometheus-up: ## local Prometheus on 127.0.0.1:9090+PORT_OFFSET scraping the three services (k6 remote write enabled)
	local/prometheus.sh up

prometheus-down: ## stop the local Prometheus
	local/prometheus.sh down
