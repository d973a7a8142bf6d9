# Sourced by scripts/serve and scripts/check: create .venv and install the project into it
# only when needed: on first use, or when pyproject.toml or setup.py (the dependencies, the
# packages, the entry points) really changed since the last install (their hash, with the
# extras installed, is kept in .venv/.installed). The code is installed editable, so an edit
# to a module needs no reinstall. A development install after a plain one adds the tools of
# the dev extra and leaves the project as it is.
#
# The install never compiles the commit gate (PROVLEDGER_GATE_PURE=1): compile_gate does,
# only when the gate's sources differ from those it was compiled from, in the foreground
# (scripts/check) or in the background while the service runs from source (scripts/serve).
# Long steps print a line at least every 5 s. A clean checkout (CI) has no .venv, so it
# always installs.

_PIP=(-m pip install --disable-pip-version-check --progress-bar off)

# with_heartbeat LABEL COMMAND...: run COMMAND, saying on stderr every 5 s that it still runs.
with_heartbeat() {
  local label=$1 started=$SECONDS status=0
  shift
  "$@" &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    kill -0 "$pid" 2>/dev/null && echo "$label: still running ($((SECONDS - started)) s)" >&2
  done
  wait "$pid" || status=$?
  return "$status"
}

# _pip ARGS...: pip with only its progress lines on stderr, as they come (unbuffered: into a
# pipe, pip would hold them back until it ends); fails when pip fails. Modules are byte-compiled when first imported, not at install (--no-compile: a
# third of a first install's time here).
_pip() {
  PYTHONUNBUFFERED=1 .venv/bin/python "${_PIP[@]}" --no-compile "$@" 2>&1 \
    | { grep --line-buffered -E '^(Collecting|Successfully installed|ERROR)' >&2 || true; }
  return "${PIPESTATUS[0]}"
}

# install_project [dev]: the service's dependencies, or those and the development tools.
install_project() {
  local extra=${1:-} python=${PYTHON:-python3}
  if [ ! -x .venv/bin/python ]; then
    echo "creating .venv with $python -m venv" >&2
    with_heartbeat "creating .venv" "$python" -m venv .venv
  fi
  local wanted have="" stamp=.venv/.installed
  wanted="$(cat pyproject.toml setup.py .venv/pyvenv.cfg | sha256sum | cut -d' ' -f1)"
  [ -f "$stamp" ] && have="$(cat "$stamp")"
  if [ "${have%% *}" = "$wanted" ] && [ -x .venv/bin/provledger ]; then
    if [ -z "$extra" ] || [ "$have" = "$wanted $extra" ]; then
      return 0
    fi
    echo "adding the development tools (pyproject.toml's dev extra) to .venv; the project" \
      "itself is installed already" >&2
    local tools
    tools="$(.venv/bin/python -c 'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["dev"]))')"
    mapfile -t tools <<<"$tools"
    with_heartbeat "installing the development tools" _pip "${tools[@]}"
    echo "$wanted $extra" >"$stamp"
    return 0
  fi
  local target="."
  [ -n "$extra" ] && target=".[$extra]"
  if [ -n "$have" ]; then
    echo "pyproject.toml or setup.py changed since the last install: reinstalling $target" \
      "into .venv" >&2
  else
    echo "installing provledger ($target) and its dependencies into .venv;" \
      "the first run takes a minute or two, later runs skip this" >&2
  fi
  rm -f "$stamp"
  PROVLEDGER_GATE_PURE=1 with_heartbeat "installing" _pip -e "$target"
  echo "$wanted${extra:+ $extra}" >"$stamp"
  echo "installed; next runs start without installing" >&2
}

# gate_state: "current" when the gate's compiled modules were compiled from the sources in
# the checkout now (or the checkout has no gate), "tried" when compiling these sources failed
# before (no C compiler: the gate runs from source), else "stale".
gate_state() {
  [ -f ledger/gate/_compiled.py ] || { echo current; return; }
  .venv/bin/python - <<'PY'
import hashlib, json, runpy
from pathlib import Path
m = runpy.run_path("ledger/gate/_compiled.py")
gate = Path("ledger/gate")
sources = hashlib.sha256(json.dumps(m["digests"](gate), sort_keys=True).encode()).hexdigest()
failed = Path(".venv/.gate-compile-failed")
if m["current"](gate):
    print("current")
elif failed.exists() and failed.read_text().strip() == sources:
    print("tried")
else:
    print("stale")
PY
}

# compile_gate [background]: compile the gate's modules (setup.py) when they were compiled
# from other sources than those in the checkout now, or never; until then the gate runs from
# its sources (ledger/gate/_compiled.py). With "background", the compile runs after this
# returns (log: .venv/gate-compile.log) and the next start uses it.
compile_gate() {
  local mode=${1:-foreground} state
  state="$(gate_state)"
  [ "$state" = stale ] || return 0
  if [ "$mode" = background ]; then
    echo "the commit gate runs from source this time; its compiled modules (about twice as" \
      "fast) build in the background now (.venv/gate-compile.log) and serve from the next" \
      "start" >&2
    (nice -n 10 bash -c '. scripts/_install.sh; _compile_gate_now' \
      >.venv/gate-compile.log 2>&1 </dev/null &)
    return 0
  fi
  echo "compiling the commit gate's modules (their sources changed since they were" \
    "compiled, or they never were)" >&2
  with_heartbeat "compiling the commit gate" _compile_gate_now
}

# _compile_gate_now: compile under a lock (one compile at a time per checkout); remember a
# failure for these sources, so that a machine without a C compiler is not asked again.
_compile_gate_now() {
  (
    flock 9
    [ "$(gate_state)" = stale ] || exit 0
    if ! _pip --no-deps -e . || [ "$(gate_state)" != current ]; then
      .venv/bin/python - <<'PY'
import hashlib, json, runpy
from pathlib import Path
m = runpy.run_path("ledger/gate/_compiled.py")
sources = json.dumps(m["digests"](Path("ledger/gate")), sort_keys=True).encode()
Path(".venv/.gate-compile-failed").write_text(hashlib.sha256(sources).hexdigest() + "\n")
PY
      echo "the commit gate could not be compiled (no C compiler?): it runs from source" >&2
    fi
  ) 9>.venv/.gate-compile.lock
}
