# Sourced by scripts/serve and scripts/check: create .venv and install the project into it only
# when needed: on first use, or when pyproject.toml or setup.py (the dependencies, the packages,
# the entry points, the compiled gate) changed since the last install. The code is installed
# editable, so an edit to a module needs no reinstall, except that the gate's compiled modules
# (setup.py) are compiled again when their sources changed (compile_gate). A clean checkout (CI)
# has no .venv, so it always installs.

# install_project [dev]: the service's dependencies, or those and the development tools.
install_project() {
  local extra=${1:-} python=${PYTHON:-python3}
  if [ ! -x .venv/bin/python ]; then
    echo "creating .venv with $python -m venv" >&2
    "$python" -m venv .venv
  fi
  local wanted
  wanted="$(cat pyproject.toml setup.py .venv/pyvenv.cfg | sha256sum | cut -d' ' -f1)"
  # A development install also serves; a plain one does not run the checks.
  local stamp stamps=(.venv/.installed-dev)
  [ -n "$extra" ] || stamps+=(.venv/.installed)
  for stamp in "${stamps[@]}"; do
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ] && [ -x .venv/bin/provledger ]; then
      compile_gate
      return 0
    fi
  done
  local target="." done_stamp=.venv/.installed
  if [ -n "$extra" ]; then
    target=".[$extra]" done_stamp=.venv/.installed-$extra
  fi
  if compgen -G ".venv/.installed*" >/dev/null; then
    echo "pyproject.toml or setup.py changed since the last install: reinstalling $target" \
      "into .venv" >&2
  else
    echo "installing provledger ($target) and its dependencies into .venv;" \
      "the first run takes a minute or two, later runs skip this" >&2
  fi
  .venv/bin/python -m pip install --disable-pip-version-check --progress-bar off -e "$target" 2>&1 \
    | { grep --line-buffered -E '^(Collecting|Successfully installed|ERROR)' >&2 || true; }
  echo "$wanted" >"$done_stamp"
  echo "installed; next runs start without installing" >&2
}

# compile_gate: compile the gate's modules again (setup.py) when they were compiled from other
# sources than those in the checkout now; until then the gate runs from its sources
# (ledger/gate/_compiled.py). Nothing to do where they never compiled (no C compiler).
compile_gate() {
  [ -f ledger/gate/_compiled.py ] || return 0
  local state
  state="$(.venv/bin/python - <<'PY'
import runpy
from pathlib import Path
m = runpy.run_path("ledger/gate/_compiled.py")
gate = Path("ledger/gate")
built = any(m["extension"](gate, n) for n in m["compiled_names"](gate))
print("current" if not built or m["current"](gate) else "stale")
PY
)"
  if [ "$state" = stale ]; then
    echo "the gate's sources changed since they were compiled: compiling them again" >&2
    .venv/bin/python -m pip install --disable-pip-version-check --progress-bar off --no-deps \
      -e . 2>&1 | { grep --line-buffered -E '^(ERROR)' >&2 || true; }
  fi
}
