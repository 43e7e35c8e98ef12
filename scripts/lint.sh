#!/usr/bin/env bash
# Lints and format-checks everything that is not Java (the Maven build checks that): Python (ruff),
# shell (ShellCheck), YAML (yamllint), Markdown (markdownlint-cli2) and the JavaScript of the k6
# scripts and the waiting room's page (prettier). The tools are pinned and installed by
# `scripts/tools.sh lint`; their configuration is at the repository root (ruff.toml, .shellcheckrc,
# .yamllint.yaml, .markdownlint-cli2.jsonc, .prettierrc.json; .editorconfig agrees with them).
# Usage: scripts/lint.sh          check (make lint; a stage of make test)
#        scripts/lint.sh fix      apply the formatters (ruff format, prettier) and the safe fixes
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
MODE=${1:-check}
SHELLCHECK_VERSION=0.9.0   # Debian bookworm's shellcheck=0.9.0-1 (scripts/tools.sh)

"$ROOT/scripts/tools.sh" lint
VENV="$ROOT/.tools/venv/lint/bin"
NPM_BIN="$ROOT/.tools/lint-npm/node_modules/.bin"

# The files git knows of (tracked, or new and not ignored), by kind.
files() { git ls-files -z --cached --others --exclude-standard -- "$@" | xargs -0 -r ls -d 2>/dev/null; }
shell_files() {
  # *.sh, and the scripts without an extension whose shebang names a shell
  files '*.sh'
  files | grep -v '\.[A-Za-z0-9]*$' | while read -r f; do
    head -n1 "$f" 2>/dev/null | grep -qE '^#!.*/(env )?(ba)?sh( |$)' && echo "$f"
  done
}
mapfile -t PY < <(files '*.py')
mapfile -t SH < <(shell_files | grep -vx 'services/mvnw' | sort -u)   # mvnw: Maven's wrapper, as shipped
mapfile -t YAML < <(files '*.yaml' '*.yml')
mapfile -t MD < <(files '*.md')
mapfile -t JS < <(files 'loadtests/*.js' 'tests/*.js' 'services/coupon-waiting-room/src/main/resources/static/*.js')

if [ "$MODE" = fix ]; then
  "$VENV/ruff" check --fix --quiet "${PY[@]}" || true
  "$VENV/ruff" format --quiet "${PY[@]}"
  "$NPM_BIN/prettier" --log-level warn --write "${JS[@]}"
  exit 0
fi
[ "$MODE" = check ] || { echo "usage: $0 [check|fix]" >&2; exit 2; }

failed=()
run() {
  local name=$1; shift
  local t0=$SECONDS
  if "$@"; then
    printf '[lint] %-12s ok   (%s s)\n' "$name" $((SECONDS - t0))
  else
    printf '[lint] %-12s FAIL (%s s)\n' "$name" $((SECONDS - t0))
    failed+=("$name")
  fi
}
shellcheck_pinned() {
  local v
  v=$(shellcheck --version | sed -n 's/^version: //p')
  [ "$v" = "$SHELLCHECK_VERSION" ] || { echo "shellcheck $v found, $SHELLCHECK_VERSION pinned (scripts/tools.sh lint)"; return 1; }
  # two at a time: each file's run also reads the libraries it sources
  printf '%s\0' "$@" | xargs -0 -P 2 -n 6 shellcheck -S warning
}
markdownlint() { "$NPM_BIN/markdownlint-cli2" "$@" >/dev/null; }   # its findings go to stderr

run ruff "$VENV/ruff" check --quiet "${PY[@]}"
run ruff-format "$VENV/ruff" format --check --quiet "${PY[@]}"
run shellcheck shellcheck_pinned "${SH[@]}"
run yamllint "$VENV/yamllint" --strict -f parsable "${YAML[@]}"
run markdown markdownlint "${MD[@]}"
run prettier "$NPM_BIN/prettier" --log-level warn --check "${JS[@]}"

echo "[lint] ${#PY[@]} Python, ${#SH[@]} shell, ${#YAML[@]} YAML, ${#MD[@]} Markdown, ${#JS[@]} JavaScript files"
if [ ${#failed[@]} -gt 0 ]; then
  echo "[lint] FAILED: ${failed[*]} (scripts/lint.sh fix applies the formatters)"
  exit 1
fi
