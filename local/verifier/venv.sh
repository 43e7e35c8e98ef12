# Sourced: venv_python NAME REQUIREMENTS... prints the interpreter of .tools/venv/NAME, created (or
# re-created) whenever the requirements files differ from the ones it was built from. Pinned
# packages only, so every machine gets the same ones; one lock per venv, so parallel callers wait.
# pip runs from the repository root: a requirements line `-e ./local/verifier` installs the
# project's own packages (local/verifier, local/bench, monitoring/checks) editable, by that path.
venv_python() {
  local name=$1; shift
  local root; root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  local venv="$root/.tools/venv/$name"
  mkdir -p "$root/.tools/locks"
  (
    flock 9
    if [ -x "$venv/bin/python" ] && cat "$@" | cmp -s - "$venv/.requirements"; then exit 0; fi
    echo "[venv] creating $venv from $*" >&2
    rm -rf "$venv"
    python3 -m venv --without-pip "$venv"
    local args=(); for r in "$@"; do args+=(-r "$r"); done
    cd "$root" && python3 -m pip --python "$venv/bin/python" install --quiet --disable-pip-version-check "${args[@]}" >&2
    cat "$@" > "$venv/.requirements"
  ) 9>"$root/.tools/locks/venv-$name.lock" || return 1
  echo "$venv/bin/python"
}
