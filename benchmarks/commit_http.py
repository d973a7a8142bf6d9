"""Claim commits over REST on loopback, with concurrent clients, on SQLite and PostgreSQL.

Usage: python -m benchmarks.commit_http [--backend sqlite|postgres|both] [--clients 8]
       [--requests 400] [--worker]

Starts ``provledger serve`` as a separate process, registers a source, opens 50 receipts
(commits are spread over them, as real apps open one receipt per inference), then:
1. one-claim commits from ``--clients`` concurrent clients: p50 and p99 latency;
2. commits of 20 claims each: claims/s;
3. as a baseline in the same run, ``GET /healthz`` latency from the same clients.
Each claim quotes a span verbatim, so every one passes the whole gate. With ``--worker`` the
service runs with ``PROVLEDGER_BACKGROUND=false`` and a ``provledger expire`` process does the
projections and expiries beside it (the server CPU figure is then the API process's alone).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import httpx
import psycopg
from psycopg import sql

from benchmarks._fleet import PG_URL, SENTENCES, free_port, pct, run_clients

RECEIPTS = 50


def _env(data_dir: Path, database_url: str | None) -> dict[str, str]:
    env = {**os.environ, "PROVLEDGER_DATA_DIR": str(data_dir), "PROVLEDGER_LOG_LEVEL": "WARNING"}
    env.pop("PROVLEDGER_DATABASE_URL", None)
    if database_url:
        env["PROVLEDGER_DATABASE_URL"] = database_url
    return env


def _start(
    data_dir: Path, database_url: str | None, worker: bool
) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = _env(data_dir, database_url)
    if worker:
        env["PROVLEDGER_BACKGROUND"] = "false"
    cli = Path(sys.executable).parent / "provledger"
    secret = (
        subprocess.run(
            [str(cli), "keys", "create", "--name", "bench", "--scopes", "admin"],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
        .stdout.strip()
        .splitlines()[-1]
    )
    process = subprocess.Popen(
        [str(cli), "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(400):
        try:
            if httpx.get(f"{base}/readyz").status_code == 200:
                return process, secret
        except httpx.TransportError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("service did not start")


def bench(backend: str, clients: int, requests: int, worker: bool = False) -> None:
    """Run the three measurements against one backend."""
    schema = f"bench_{uuid.uuid4().hex[:10]}"
    database_url = f"{PG_URL}?schema={schema}" if backend == "postgres" else None
    with tempfile.TemporaryDirectory() as tmp:
        process, secret = _start(Path(tmp), database_url, worker)
        background = None
        if worker:
            background = subprocess.Popen(
                [str(Path(sys.executable).parent / "provledger"), "expire"],
                env=_env(Path(tmp), database_url),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        try:
            if worker:
                print(f"[{backend}] projections and expiries in a worker process")
            _measure(
                backend,
                f"http://127.0.0.1:{_port_of(process)}",
                secret,
                clients,
                requests,
                lambda: _cpu_seconds(process.pid),
            )
        finally:
            for running in (process, background):
                if running is not None:
                    running.terminate()
                    running.wait(timeout=20)
            if backend == "postgres":
                with psycopg.connect(PG_URL, autocommit=True) as conn:
                    conn.execute(
                        sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema))
                    )


def _port_of(process: subprocess.Popen[bytes]) -> int:
    args = process.args
    assert isinstance(args, list)
    return int(args[args.index("--port") + 1])


def _cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far (Linux ``/proc``), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _idle_cpu(server_cpu: Callable[[], float]) -> float:
    """The server's CPU seconds per second when no request arrives (its pollers)."""
    before = server_cpu()
    time.sleep(1.0)
    return server_cpu() - before


def _measure(
    backend: str,
    base: str,
    secret: str,
    clients: int,
    requests: int,
    server_cpu: Callable[[], float],
) -> None:
    headers = {"Authorization": f"Bearer {secret}"}
    with httpx.Client(base_url=base, headers=headers, timeout=30) as http:
        body = {
            "source_id": "bench",
            "title": "Bench",
            "authority": "derived",
            "text": " ".join(SENTENCES),
        }
        spans = http.post("/v1/sources", json=body).json()["spans"]
        receipts = [
            http.post(
                "/v1/receipts",
                json={
                    "request": f"question {n}",
                    "actor": "a",
                    "purpose": "bench",
                    "policy_version": "default",
                    "route": "hybrid_retrieval",
                    "model": {"name": "m", "version": "1"},
                    "evidence": [s["span_id"] for s in spans],
                },
            ).json()["receipt_id"]
            for n in range(RECEIPTS)
        ]

    def url(index: int) -> str:
        # One receipt per inference in real use: spread the commits over many receipts.
        return f"{base}/v1/receipts/{receipts[index % RECEIPTS]}/claims"

    def claim(index: int) -> dict[str, object]:
        span = spans[index % len(spans)]
        return {
            "text": span["text"],
            "bindings": [{"span_id": span["span_id"], "quote": span["text"]}],
        }

    def one(client: httpx.Client, index: int) -> None:
        response = client.post(url(index), json={"claims": [claim(index)]}, headers=headers)
        assert response.status_code == 201, response.text

    def twenty(client: httpx.Client, index: int) -> None:
        batch = [claim(index * 20 + k) for k in range(20)]
        response = client.post(url(index), json={"claims": batch}, headers=headers)
        assert response.status_code == 201, response.text

    def health(client: httpx.Client, index: int) -> None:
        client.get(f"{base}/healthz")

    baseline = run_clients(clients, requests, health, "")[0]
    started, cpu = time.perf_counter(), server_cpu()
    singles = run_clients(clients, requests, one, "")[0]
    single_elapsed = time.perf_counter() - started
    time.sleep(1.5)  # let the projections and the expiry process follow the last commits
    single_cpu = server_cpu() - cpu - 1.5 * _idle_cpu(server_cpu)
    started = time.perf_counter()
    batches = run_clients(clients, max(requests // 10, 10), twenty, "")[0]
    batch_elapsed = time.perf_counter() - started
    print(f"[{backend}] clients: {clients}")
    print(
        f"[{backend}] baseline GET /healthz: p50 {pct(baseline, 0.5):.2f} ms, "
        f"p99 {pct(baseline, 0.99):.2f} ms"
    )
    print(
        f"[{backend}] one-claim commits: {len(singles)}, p50 {pct(singles, 0.5):.2f} ms, "
        f"p99 {pct(singles, 0.99):.2f} ms, {len(singles) / single_elapsed:,.0f} claims/s "
        f"(p50 {pct(singles, 0.5) / pct(baseline, 0.5):.1f}x the baseline); "
        f"server CPU {single_cpu / len(singles) * 1000:.2f} ms per commit"
    )
    print(
        f"[{backend}] 20-claim commits: {len(batches)}, p50 {pct(batches, 0.5):.2f} ms, "
        f"{len(batches) * 20 / batch_elapsed:,.0f} claims/s"
    )
    print(f"[{backend}] median of one-claim latency: {statistics.median(singles) * 1000:.2f} ms")


def main() -> None:
    """Parse arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument(
        "--worker", action="store_true", help="projections and expiries in their own process"
    )
    args = parser.parse_args()
    for backend in ["sqlite", "postgres"] if args.backend == "both" else [args.backend]:
        bench(backend, args.clients, args.requests, args.worker)


if __name__ == "__main__":
    main()
