"""Peak server memory under concurrent oversized uploads, as a ratio of the idle server's.

Usage: python -m benchmarks.body_limit [--uploads 4] [--megabytes 200]

Starts ``provledger serve`` (SQLite) as a separate process, measures its resident memory once it
is warm (one source registered), then for each scenario sends ``--uploads`` concurrent POSTs of
``--megabytes`` each and samples the server's resident set every 5 ms (and its high-water mark,
reset between scenarios through ``/proc/PID/clear_refs``):

1. anonymous, with a ``Content-Length``;
2. anonymous, chunked (no length declared);
3. an admin key, chunked, to ``/v1/receipts`` (the default body limit);
4. an admin key, chunked, to ``/v1/sources`` (the larger source body limit).

Prints the idle resident set, each scenario's peak, the ratio peak / idle, what the clients got
back (a status, or the connection closed by the server once it stopped reading), and the time.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

CHUNK = 64 * 1024


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start(data_dir: Path) -> tuple[subprocess.Popen[bytes], str, str]:
    env = {**os.environ, "PROVLEDGER_DATA_DIR": str(data_dir), "PROVLEDGER_LOG_LEVEL": "WARNING"}
    env.pop("PROVLEDGER_DATABASE_URL", None)
    cli = Path(sys.executable).parent / "provledger"
    created = subprocess.run(
        [str(cli), "keys", "create", "--name", "bench", "--scopes", "admin"],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    secret = created.stdout.strip().splitlines()[-1]
    port = _free_port()
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
                return process, base, secret
        except httpx.TransportError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("service did not start")


def _server_pid(process: subprocess.Popen[bytes]) -> int:
    """The process that serves: ``provledger serve`` itself, or its only child."""
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
    return int(children[0]) if len(children) == 1 else process.pid


def _status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} for {pid}")


def _reset_peak(pid: int) -> None:
    with contextlib.suppress(OSError):  # without it, the sampled peak still stands
        Path(f"/proc/{pid}/clear_refs").write_text("5")


def _body(megabytes: int) -> Iterator[bytes]:
    block = b" " * CHUNK
    for _ in range(megabytes * 1024 * 1024 // CHUNK):
        yield block


def _upload(base: str, path: str, headers: dict[str, str], megabytes: int, chunked: bool) -> str:
    size = megabytes * 1024 * 1024 // CHUNK * CHUNK
    content: Iterator[bytes] = _body(megabytes)
    if not chunked:
        headers = {**headers, "Content-Length": str(size)}
    try:
        with httpx.Client(timeout=60) as client:
            response = client.post(base + path, content=content, headers=headers)
        return str(response.status_code)
    except httpx.TransportError as exc:
        return f"closed ({type(exc).__name__})"


def scenario(
    pid: int,
    base: str,
    path: str,
    headers: dict[str, str],
    uploads: int,
    megabytes: int,
    *,
    chunked: bool,
) -> tuple[int, collections.Counter[str], float]:
    """Run concurrent uploads; return the peak resident KiB, the outcomes and the seconds."""
    _reset_peak(pid)
    peak = _status_kib(pid, "VmRSS")
    outcomes: collections.Counter[str] = collections.Counter()
    lock = threading.Lock()

    def one() -> None:
        outcome = _upload(base, path, headers, megabytes, chunked)
        with lock:
            outcomes[outcome] += 1

    started = time.perf_counter()
    threads = [threading.Thread(target=one) for _ in range(uploads)]
    for thread in threads:
        thread.start()
    while any(thread.is_alive() for thread in threads):
        peak = max(peak, _status_kib(pid, "VmRSS"))
        time.sleep(0.005)
    elapsed = time.perf_counter() - started
    peak = max(peak, _status_kib(pid, "VmHWM"))
    return peak, outcomes, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uploads", type=int, default=4)
    parser.add_argument("--megabytes", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        process, base, secret = _start(Path(tmp))
        try:
            pid = _server_pid(process)
            admin = {"Authorization": f"Bearer {secret}", "Content-Type": "application/json"}
            source = {"source_id": "warm", "title": "W", "authority": "derived", "text": "Warm."}
            httpx.post(f"{base}/v1/sources", json=source, headers=admin).raise_for_status()
            time.sleep(0.5)
            idle = _status_kib(pid, "VmRSS")
            print(f"idle server: {idle / 1024:.1f} MiB resident")
            print(f"{args.uploads} concurrent uploads of {args.megabytes} MB each:")
            anonymous = {"Content-Type": "application/json"}
            cases = [
                ("anonymous, Content-Length", "/v1/sources", anonymous, False),
                ("anonymous, chunked", "/v1/sources", anonymous, True),
                ("admin key, chunked, /v1/receipts", "/v1/receipts", admin, True),
                ("admin key, chunked, /v1/sources", "/v1/sources", admin, True),
            ]
            for label, path, headers, chunked in cases:
                peak, outcomes, seconds = scenario(
                    pid, base, path, headers, args.uploads, args.megabytes, chunked=chunked
                )
                got = ", ".join(f"{count} x {outcome}" for outcome, count in outcomes.items())
                print(
                    f"  {label:34} peak {peak / 1024:7.1f} MiB = {peak / idle:5.2f}x idle"
                    f"  ({got}; {seconds:.2f} s)"
                )
        finally:
            process.terminate()
            process.wait(timeout=10)


if __name__ == "__main__":
    main()
