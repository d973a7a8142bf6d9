"""The fleet's process shape: one `provledger worker` per ledger under a lease, and
`provledger serve --workers N` running N API processes.

The processes run as real subprocesses on the test's ledger (both backends). The deadlines below
only keep a broken run from hanging the suite; nothing here measures speed.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest

from api.settings import Settings
from ledger.runtime import LedgerRuntime
from processes.lease import lease_key
from tests.conftest import PG_URL

CLI = Path(sys.executable).parent / "provledger"
HANG_GUARD = 120.0  # seconds before a stuck subprocess fails the test instead of hanging it


def _env(settings: Settings) -> dict[str, str]:
    env = {**os.environ, "PROVLEDGER_DATA_DIR": str(settings.data_dir), "PYTHONUNBUFFERED": "1"}
    env.pop("PROVLEDGER_DATABASE_URL", None)
    env.pop("PROVLEDGER_SIGNING_KEY_FILE", None)
    env.pop("PROVLEDGER_BACKGROUND", None)
    if settings.database_url:
        env["PROVLEDGER_DATABASE_URL"] = settings.database_url
    return env


@pytest.fixture
def spawn(settings: Settings) -> Iterator[list[subprocess.Popen[str]]]:
    """Started subprocesses, stopped at the end of the test whatever happened."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait()


def _start(
    spawned: list[subprocess.Popen[str]], settings: Settings, *args: str
) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [str(CLI), *args],
        env=_env(settings),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    spawned.append(process)
    return process


def _line(process: subprocess.Popen[str], fragment: str) -> str:
    """The next stdout line of ``process`` that contains ``fragment``."""
    assert process.stdout is not None
    seen: list[str] = []
    for line in process.stdout:
        seen.append(line)
        if fragment in line:
            return line
    raise AssertionError(f"{fragment!r} never printed; stdout: {seen}, rc {process.poll()}")


def test_a_second_worker_waits_for_the_lease_and_takes_over_when_the_first_exits(
    settings: Settings, runtime: LedgerRuntime, spawn: list[subprocess.Popen[str]]
) -> None:
    first = _start(spawn, settings, "worker", "--interval", "0.1")
    assert "worker lease held" in _line(first, "worker lease held")

    second = _start(spawn, settings, "worker", "--interval", "0.1")
    waiting = _line(second, "waiting for the worker lease")
    assert "another worker holds it" in waiting

    first.send_signal(signal.SIGTERM)
    assert first.wait(HANG_GUARD) == 0
    assert first.stdout is not None
    assert "lease released" in first.stdout.read()

    assert "worker lease held" in _line(second, "worker lease held")
    second.send_signal(signal.SIGTERM)
    assert second.wait(HANG_GUARD) == 0


def test_a_worker_holding_the_lease_touches_its_heartbeat_file_round_after_round(
    settings: Settings, runtime: LedgerRuntime, spawn: list[subprocess.Popen[str]], tmp_path: Path
) -> None:
    beat = tmp_path / "worker.alive"
    worker = _start(spawn, settings, "worker", "--interval", "0.05", "--heartbeat", str(beat))
    _line(worker, "worker lease held")
    deadline = time.monotonic() + HANG_GUARD
    while not beat.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    first = beat.stat().st_mtime_ns
    while beat.stat().st_mtime_ns == first and time.monotonic() < deadline:
        time.sleep(0.05)

    assert beat.stat().st_mtime_ns > first
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(HANG_GUARD) == 0


# PostgreSQL only: a file lock (SQLite) cannot be lost while its process lives.
@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
def test_a_worker_whose_lease_connection_is_lost_stops_instead_of_running_on(
    settings: Settings, runtime: LedgerRuntime, spawn: list[subprocess.Popen[str]]
) -> None:
    worker = _start(spawn, settings, "worker", "--interval", "0.1")
    _line(worker, "worker lease held")
    key = lease_key(runtime.database)
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        row = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory'"
            " AND granted AND classid = %s AND objid = %s AND objsubid = 1",
            (key >> 32, key & 0xFFFFFFFF),
        ).fetchone()
    assert row == (True,)

    assert worker.wait(HANG_GUARD) == 1
    _, stderr = worker.communicate()
    assert "lost the worker lease" in stderr


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_serve_with_two_workers_answers_from_two_api_processes(
    settings: Settings, runtime: LedgerRuntime, spawn: list[subprocess.Popen[str]]
) -> None:
    secret = runtime.api_keys.issue("reader", ["read"], "test:suite")
    port = _free_port()
    server = _start(spawn, settings, "serve", "--workers", "2", "--port", str(port))
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + HANG_GUARD
    while True:
        assert server.poll() is None, server.communicate()
        try:
            if httpx.get(f"{base}/healthz").status_code == 200:
                break
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, "the server never answered"
        time.sleep(0.1)

    headers = {"Authorization": f"Bearer {secret}"}
    for _ in range(20):  # a fresh connection each: the kernel hands them to either process
        assert httpx.get(f"{base}/v1/sources/none", headers=headers).status_code == 404

    server.send_signal(signal.SIGTERM)
    server.wait(HANG_GUARD)
    _, stderr = server.communicate()
    pids = set(re.findall(r"Started server process \[(\d+)\]", stderr))
    assert len(pids) == 2, stderr
