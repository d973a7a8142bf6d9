"""A newcomer's first minutes on a clean clone: ``scripts/serve`` until ``/healthz`` answers,
the command line's start, the first commits after ``/readyz`` says ready, ``scripts/check``.

Usage: python -m benchmarks.startup [--repo DIR] [--check]

Clones ``--repo`` (default: this checkout) into a temporary folder, so nothing installed or
compiled here is reused, and prints: seconds until ``/healthz`` answers and the longest
silence on screen before it; ``provledger --help``, ``--version`` and ``keys --help`` (best
of five each); the p50 and p99 of the first 40 one-claim commits after ``/readyz`` answered
ready, and their ratio, then the same after a second start once the gate compiled in the
background (a new data folder); with ``--check``, how long ``scripts/check`` took in the clone (it
installs the development tools and compiles the gate first). Every request goes to
127.0.0.1; each wait is bounded.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import httpx

from benchmarks._fleet import SENTENCES, free_port, receipt_body, verbatim

REPO = Path(__file__).resolve().parents[1]
COMMITS = 40


def _serve(
    clone: Path, port: int, env: dict[str, str]
) -> tuple[subprocess.Popen[str], float, float]:
    """Start ``scripts/serve``; return it, the seconds until ``/healthz`` answered and the
    longest time without a line on screen before that."""
    started = time.monotonic()
    process = subprocess.Popen(
        ["scripts/serve", "--port", str(port)],
        cwd=clone,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[float] = [started]
    stop = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            if not stop.is_set():
                lines.append(time.monotonic())
                print(f"  [{time.monotonic() - started:6.1f} s] {line.rstrip()[:150]}", flush=True)

    threading.Thread(target=read, daemon=True).start()
    deadline = started + 900
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("scripts/serve stopped before /healthz answered")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                break
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    answered = time.monotonic()
    stop.set()
    silences = [b - a for a, b in zip(lines, [*lines[1:], answered], strict=True)]
    return process, answered - started, max(silences)


def _best_of(command: list[str], env: dict[str, str], clone: Path, times: int = 5) -> float:
    best = float("inf")
    for _ in range(times):
        started = time.perf_counter()
        subprocess.run(command, cwd=clone, env=env, capture_output=True, check=True, timeout=120)
        best = min(best, time.perf_counter() - started)
    return best


def _first_commits(clone: Path, port: int, env: dict[str, str]) -> list[float]:
    """The first :data:`COMMITS` one-claim commits after ``/readyz`` said ready, seconds."""
    created = subprocess.run(
        [str(clone / ".venv" / "bin" / "provledger"), "keys", "create", "--name", "first",
         "--scopes", "admin"],
        cwd=clone, env=env, capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    secret = created.stdout.strip().splitlines()[-1]
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if httpx.get(f"{base}/readyz", timeout=10).status_code == 200:
            break
        time.sleep(0.2)
    headers = {"Authorization": f"Bearer {secret}"}
    with httpx.Client(base_url=base, headers=headers, timeout=120) as http:
        body = {"source_id": "first", "title": "First", "authority": "derived",
                "text": " ".join(SENTENCES)}  # fmt: skip
        spans = http.post("/v1/sources", json=body).json()["spans"]
        receipt = http.post("/v1/receipts", json=receipt_body([s["span_id"] for s in spans], 0))
        receipt_id = receipt.json()["receipt_id"]
        took = []
        for n in range(COMMITS):
            claim = {"claims": [verbatim(spans[n % len(spans)])]}
            started = time.perf_counter()
            response = http.post(f"/v1/receipts/{receipt_id}/claims", json=claim)
            took.append(time.perf_counter() - started)
            if response.status_code != 201:
                raise RuntimeError(f"commit {n}: {response.status_code} {response.text[:300]}")
    return took


def _print_commits(label: str, commits: list[float]) -> None:
    ordered = sorted(commits)
    p50 = statistics.median(ordered)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    slowest = sorted(range(len(commits)), key=commits.__getitem__)[-3:]
    shown = ", ".join(f"#{n + 1} {commits[n] * 1000:.1f} ms" for n in reversed(slowest))
    print(
        f"{label}: the first {COMMITS} one-claim commits after ready: p50 {p50 * 1000:.1f} ms, "
        f"p99 {p99 * 1000:.1f} ms, p99/p50 {p99 / p50:.2f}; the slowest {shown}"
    )


def _wait_for_compile(clone: Path) -> None:
    """Until the background compile of the gate that the first start began is over."""
    lock = clone / ".venv" / ".gate-compile.lock"
    deadline = time.monotonic() + 1200
    while time.monotonic() < deadline:
        done = subprocess.run(["flock", "-n", str(lock), "true"], check=False)
        log = clone / ".venv" / "gate-compile.log"
        if done.returncode == 0 and log.exists():
            return
        time.sleep(2)


def main() -> None:
    """Clone, serve, measure, stop."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.startup")
    parser.add_argument("--repo", type=Path, default=REPO)
    parser.add_argument("--check", action="store_true", help="also time scripts/check")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="provledger-clone-"))
    clone = work / "provledger"
    try:
        subprocess.run(["git", "clone", "-q", str(args.repo), str(clone)], check=True)
        shared = args.repo.parent / "shared"
        if shared.is_dir() and not (work / "shared").exists():
            (work / "shared").symlink_to(shared)
        env = {
            k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PROVLEDGER_"))
        }
        env["PROVLEDGER_DATA_DIR"] = str(work / "data")
        port = free_port()
        process, healthz, silence = _serve(clone, port, env)
        try:
            commits = _first_commits(clone, port, env)
        finally:
            process.terminate()
            process.wait(timeout=60)
        _wait_for_compile(clone)
        shutil.rmtree(work / "data")
        port = free_port()
        process, again, _ = _serve(clone, port, env)
        try:
            compiled = _first_commits(clone, port, env)
        finally:
            process.terminate()
            process.wait(timeout=60)
        cli = str(clone / ".venv" / "bin" / "provledger")
        print(f"first scripts/serve: /healthz answered after {healthz:.1f} s; longest silence "
              f"on screen before it {silence:.1f} s")  # fmt: skip
        for label, command in (
            ("provledger --help", [cli, "--help"]),
            ("provledger --version", [cli, "--version"]),
            ("provledger keys --help", [cli, "keys", "--help"]),
        ):
            print(f"{label}: {_best_of(command, env, clone):.2f} s (best of 5)")
        _print_commits("the first start (gate from source, compiling beside it)", commits)
        print(f"second start (compiled gate, a new data folder): /healthz after {again:.1f} s")
        _print_commits("the second start", compiled)
        if args.check:
            started = time.monotonic()
            done = subprocess.run(["scripts/check"], cwd=clone, env=env, capture_output=True,
                                  text=True, check=False, timeout=3600)  # fmt: skip
            tail = [line for line in done.stdout.splitlines() if " passed" in line][-1:]
            print(f"scripts/check on the clean clone: {time.monotonic() - started:.0f} s, exit "
                  f"{done.returncode} {' '.join(tail)}")  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
