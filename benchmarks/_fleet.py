"""A provledger fleet on loopback for benchmarks: N API processes and one worker on a fresh
PostgreSQL schema, with their CPU time and resident memory read from ``/proc``."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
from psycopg import sql

PG_URL = "postgresql://postgres@127.0.0.1:5432/test"
CLI = str(Path(sys.executable).parent / "provledger")
SENTENCES = [
    f"Segment {i} revenue rose {i}.{i % 10}% to ${i + 1}.5 million in fiscal 2023."
    for i in range(40)
]


def autovacuum_note() -> str | None:
    """A warning when the PostgreSQL server runs without autovacuum: its read-model tables are
    then never analysed, and plans made without statistics read whole tables, so a long run
    slows as they grow (docs/deployment.md, "PostgreSQL"). ``None`` when autovacuum is on."""
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        row = conn.execute("SHOW autovacuum").fetchone()
    if row is None or row[0] == "on":
        return None
    return (
        "note: this PostgreSQL runs with autovacuum off, so no table is analysed while the "
        "run lasts; plans made without statistics read whole tables and the run slows as "
        "they grow (docs/deployment.md)"
    )


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _tree(pid: int) -> list[int]:
    """``pid`` and every descendant (uvicorn's worker processes)."""
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                queue.extend(int(c) for c in (task / "children").read_text().split())
            except OSError:
                continue
    return found


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of ``pid`` and its descendants so far."""
    total = 0
    for member in _tree(pid):
        try:
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def _status_mib(pid: int, fields: tuple[str, ...]) -> dict[str, float]:
    """The named ``kB`` fields of ``/proc/<pid>/status``, MiB (none once the process is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {}
    values = {}
    for line in status.splitlines():
        name, _, value = line.partition(":")
        if name in fields:
            values[name] = int(value.split()[0]) / 1024
    return values


def rss_mib(pid: int) -> dict[int, float]:
    """Resident set of ``pid`` and each descendant, MiB."""
    sizes = {member: _status_mib(member, ("VmRSS",)).get("VmRSS") for member in _tree(pid)}
    return {member: mib for member, mib in sizes.items() if mib is not None}


def rss_parts_mib(pid: int) -> dict[str, float]:
    """The resident set of ``pid`` by kind, MiB: anonymous memory (the heap, native buffers),
    file-backed pages (mapped libraries and files) and shared memory."""
    parts = _status_mib(pid, ("RssAnon", "RssFile", "RssShmem"))
    return {name[3:].lower(): mib for name, mib in parts.items()}


def _role(pid: int) -> str:
    """What a process under the API supervisor is: an API process or a helper."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "gone"
    return "multiprocessing helper" if b"resource_tracker" in command else "api"


@dataclass
class Fleet:
    """A running fleet: API processes behind one port, one worker."""

    base: str
    secret: str
    env: dict[str, str]
    api: subprocess.Popen[bytes]
    worker: subprocess.Popen[bytes]
    api_processes: int
    logs: Path
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def headers(self) -> dict[str, str]:
        """The admin key's Authorization header."""
        return {"Authorization": f"Bearer {self.secret}"}

    def cpu(self) -> tuple[float, float]:
        """CPU seconds so far of the API processes and of the worker."""
        return cpu_seconds(self.api.pid), cpu_seconds(self.worker.pid)

    def rss(self) -> dict[str, float]:
        """Resident set (MiB) of each API process and of the worker."""
        sizes = rss_mib(self.api.pid)
        named = {
            f"{_role(pid)} pid {pid}": mib for pid, mib in sizes.items() if pid != self.api.pid
        }
        named[f"api supervisor pid {self.api.pid}"] = sizes.get(self.api.pid, 0.0)
        named[f"worker pid {self.worker.pid}"] = rss_mib(self.worker.pid).get(self.worker.pid, 0.0)
        return named

    def rss_parts(self) -> dict[str, dict[str, float]]:
        """The resident set of each API process and of the worker, by kind (MiB)."""
        pids = [pid for pid in rss_mib(self.api.pid) if pid != self.api.pid]
        named = {f"{_role(pid)} pid {pid}": rss_parts_mib(pid) for pid in pids}
        named[f"worker pid {self.worker.pid}"] = rss_parts_mib(self.worker.pid)
        return named

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        """Run a ``provledger`` command against the fleet's ledger."""
        return subprocess.run(
            [CLI, *args], env=self.env, capture_output=True, text=True, check=False, timeout=1800
        )


@contextmanager
def fleet(api_processes: int, log_level: str = "INFO") -> Iterator[Fleet]:
    """Start ``api_processes`` API processes (``serve --workers N``, or one process without
    background work) and ``provledger worker`` on a fresh schema; stop and drop it after.
    The log level must let uvicorn's start-up lines through: they say every process serves."""
    schema = f"bench_{uuid.uuid4().hex[:10]}"
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "PROVLEDGER_DATA_DIR": tmp,
            "PROVLEDGER_LOG_LEVEL": log_level,
            "PROVLEDGER_DATABASE_URL": f"{PG_URL}?schema={schema}",
            "PROMETHEUS_MULTIPROC_DIR": str(Path(tmp) / "metrics"),
        }
        (Path(tmp) / "metrics").mkdir()
        secret = (
            subprocess.run(
                [CLI, "keys", "create", "--name", "bench", "--scopes", "admin"],
                env=env,
                check=True,
                capture_output=True,
                text=True,
            )
            .stdout.strip()
            .splitlines()[-1]
        )
        port = free_port()
        logs = Path(tmp) / "logs"
        logs.mkdir()
        serve = [CLI, "serve", "--port", str(port)]
        serve += ["--workers", str(api_processes)] if api_processes > 1 else ["--no-background"]
        with (logs / "api.log").open("wb") as api_log, (logs / "worker.log").open("wb") as w_log:
            api = subprocess.Popen(serve, env=env, stdout=api_log, stderr=subprocess.STDOUT)
            worker = subprocess.Popen(
                [CLI, "worker"], env=env, stdout=w_log, stderr=subprocess.STDOUT
            )
        running = Fleet(f"http://127.0.0.1:{port}", secret, env, api, worker, api_processes, logs)
        try:
            _wait_ready(running)
            yield running
        finally:
            for process in (api, worker):
                process.terminate()
            for process in (api, worker):
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
            with psycopg.connect(PG_URL, autocommit=True) as conn:
                conn.execute(
                    sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema))
                )


def _wait_ready(running: Fleet) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if running.api.poll() is not None:
            break
        try:
            ready = httpx.get(f"{running.base}/readyz", timeout=5).status_code == 200
        except httpx.TransportError:
            ready = False
        log = (running.logs / "api.log").read_text(errors="replace")
        if ready and log.count("Application startup complete") >= running.api_processes:
            return  # every API process serves (the log level is INFO)
        time.sleep(0.1)
    log = (running.logs / "api.log").read_text(errors="replace")[-2000:]
    raise RuntimeError(f"the API processes did not become ready:\n{log}")


def setup_receipts(
    http: httpx.Client, source_id: str, receipts: int
) -> tuple[list[dict[str, Any]], list[str]]:
    """Register a 40-sentence source and open ``receipts`` receipts over its spans."""
    body = {
        "source_id": source_id,
        "title": source_id,
        "authority": "derived",
        "text": " ".join(SENTENCES),
    }
    response = http.post("/v1/sources", json=body)
    assert response.status_code == 201, response.text
    spans: list[dict[str, Any]] = response.json()["spans"]
    ids = [open_receipt(http, [s["span_id"] for s in spans], n) for n in range(receipts)]
    return spans, ids


def receipt_body(evidence: list[str], n: int) -> dict[str, Any]:
    """A ``POST /v1/receipts`` body over ``evidence``."""
    return {
        "request": f"question {n}",
        "actor": "a",
        "purpose": "bench",
        "policy_version": "default",
        "route": "hybrid_retrieval",
        "model": {"name": "m", "version": "1"},
        "evidence": evidence,
    }


def open_receipt(http: httpx.Client, evidence: list[str], n: int) -> str:
    """Open one receipt over ``evidence``."""
    response = http.post("/v1/receipts", json=receipt_body(evidence, n))
    assert response.status_code == 201, response.text
    receipt_id: str = response.json()["receipt_id"]
    return receipt_id


def verbatim(span: dict[str, Any]) -> dict[str, Any]:
    """A claim that quotes ``span`` verbatim (passes the whole gate)."""
    return {"text": span["text"], "bindings": [{"span_id": span["span_id"], "quote": span["text"]}]}


def run_clients(
    clients: int, requests: int, call: Callable[[httpx.Client, int], None], base: str
) -> tuple[list[float], float]:
    """``requests`` calls from ``clients`` threads; latencies (s) and elapsed seconds."""
    latencies: list[float] = []
    errors: list[BaseException] = []
    lock = threading.Lock()
    counter = iter(range(requests))

    def work() -> None:
        with httpx.Client(base_url=base, timeout=60) as client:
            while True:
                with lock:
                    index = next(counter, None)
                if index is None:
                    return
                started = time.perf_counter()
                try:
                    call(client, index)
                except BaseException as exc:
                    errors.append(exc)
                    return
                with lock:
                    latencies.append(time.perf_counter() - started)

    threads = [threading.Thread(target=work) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return latencies, time.perf_counter() - started


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values``, in milliseconds."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000
