# lint: everything that is not Java (scripts/lint.sh); the Maven build checks the Java itself.
.PHONY: lint lint-fix
lint: ## lint and format-check Python, shell, YAML, Markdown and the k6/page JavaScript (pinned tools)
	@scripts/lint.sh

lint-fix: ## apply the formatters (ruff format, prettier) and ruff's safe fixes
	@scripts/lint.sh fix
