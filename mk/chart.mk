# The per-event umbrella chart (repository root) and its tests (tests/chart/). Tests run offline:
# the Bitnami dependencies are switched off (tests/chart/fixtures/offline-external.yaml) and dropped
# from a copy of Chart.yaml (tests/chart/offline-chart.sh explains why). PLATFORM_CHART_TESTS comes
# from mk/platform.mk.
CHART_COPY := $(ROOT)/build/chart/coupon-event
# Scenario name = extra values files (on top of the offline overlay), relative to the repository.
CHART_SCENARIOS := defaults= \
  external=examples/external-kafka.yaml \
  loadtest=examples/loadtest.yaml \
  no-autoscaling=examples/dev.yaml \
  mirror=tests/chart/fixtures/mirror.yaml \
  $(foreach f,$(sort $(wildcard examples/*.yaml)),example-$(basename $(notdir $(f)))=$(f))

.PHONY: chart-tools chart-offline chart-golden chart-values-doc chart-lint chart-unittest test-chart
chart-tools:
	@scripts/tools.sh helm helm-unittest

chart-offline: chart-tools ## copy of the chart without the Bitnami dependencies (build/chart/coupon-event)
	@tests/chart/offline-chart.sh $(CHART_COPY) >/dev/null

chart-golden: chart-offline ## rewrite tests/chart/golden/ (the examples' renders) after a reviewed chart change
	@python3 tests/chart/golden.py update $(CHART_COPY)

chart-values-doc: ## rewrite docs/values.md from values.schema.json and the values files
	@python3 tests/chart/values_doc.py update

chart-lint: chart-offline ## lint + render every scenario, golden renders, schema/fail checks
	@tests/chart/lint.sh $(CHART_COPY) $(CHART_SCENARIOS)

chart-unittest: chart-offline ## helm-unittest suites (tests/chart/unit/*_test.yaml)
	@cd $(CHART_COPY) && helm-unittest --strict --color=false -f 'tests/chart/unit/*_test.yaml' .

test-chart: ## chart lint, unit tests, and the platform's real-apiserver and schema checks
	@$(MAKE) --no-print-directory chart-lint chart-unittest $(PLATFORM_CHART_TESTS)
