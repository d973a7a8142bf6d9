"""The processes that serve one scale ledger: two API processes and a worker.

Each API process (``provledger serve``) listens on its own port on 127.0.0.1, so that the
workload can ask each whether it sees a new span; ``provledger worker`` runs the background
work. They are started with an admin key made for the run and stopped after it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from benchmarks._fleet import free_port, rss_mib, rss_parts_mib
from benchmarks.scale.ledgers import ScaleLedger

CLI = str(Path(sys.executable).parent / "provledger")


@dataclass
class Served:
    """The running processes of one ledger."""

    ports: list[int]
    secret: str
    env: dict[str, str]
    api: list[subprocess.Popen[bytes]]
    worker: subprocess.Popen[bytes]

    def rss(self) -> dict[str, dict[str, float]]:
        """Resident memory of each process, MiB: total, anonymous and file-backed."""
        named = {f"api {i + 1}": p.pid for i, p in enumerate(self.api)}
        named["worker"] = self.worker.pid
        out = {}
        for name, pid in named.items():
            total = rss_mib(pid).get(pid, 0.0)
            out[name] = {"rss": total, **rss_parts_mib(pid)}
        return out


@contextmanager
def serve(ledger: ScaleLedger, logs: Path) -> Iterator[Served]:
    """Start two API processes and a worker on ``ledger``; stop them after."""
    env = {**os.environ, **ledger.environment(), "PROVLEDGER_LOG_LEVEL": "WARNING"}
    created = subprocess.run(
        [CLI, "keys", "create", "--name", f"scale-{uuid.uuid4().hex[:6]}", "--scopes", "admin"],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    secret = created.stdout.strip().splitlines()[-1]
    logs.mkdir(parents=True, exist_ok=True)
    ports = [free_port(), free_port()]
    api = []
    for n, port in enumerate(ports):
        with (logs / f"api-{n}.log").open("wb") as out:
            command = [CLI, "serve", "--port", str(port), "--no-background"]
            api.append(subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT))
    with (logs / "worker.log").open("wb") as out:
        worker = subprocess.Popen([CLI, "worker"], env=env, stdout=out, stderr=subprocess.STDOUT)
    served = Served(ports, secret, env, api, worker)
    try:
        for port in ports:
            _wait_ready(port, api)
        yield served
    finally:
        for process in (*api, worker):
            process.terminate()
        for process in (*api, worker):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


def _wait_ready(port: int, api: list[subprocess.Popen[bytes]]) -> None:
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        if any(p.poll() is not None for p in api):
            raise RuntimeError("an API process stopped while starting")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"the API process on port {port} did not become ready")
