"""A real ``provledger witness serve`` process on a free port of 127.0.0.1, for e2e tests."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
from click.testing import CliRunner

from api.cli import main


@dataclass(frozen=True)
class RunningWitness:
    """Where the witness answers and the verifier key it printed at init."""

    url: str
    vkey: str
    data_dir: Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def init_witness(data_dir: Path, log_vkeys: list[str]) -> str:
    """Run ``provledger witness init``; return the verifier key it printed last."""
    args = ["witness", "init", "--data-dir", str(data_dir)]
    for log_vkey in log_vkeys:
        args += ["--log", log_vkey]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return result.output.strip().splitlines()[-1]


@contextmanager
def running_witness(data_dir: Path, log_vkeys: list[str]) -> Iterator[RunningWitness]:
    """Initialise a witness and serve it until the block ends."""
    vkey = init_witness(data_dir, log_vkeys)
    port = free_port()
    cli = Path(sys.executable).parent / "provledger"
    log_file = data_dir.parent / "witness.log"  # a file, so a chatty witness never blocks
    with log_file.open("w") as log:
        process = subprocess.Popen(
            [str(cli), "witness", "serve", "--data-dir", str(data_dir), "--port", str(port)],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(400):  # bounded wait for start-up
            if process.poll() is not None:
                raise AssertionError(f"witness exited: {log_file.read_text()}")
            try:
                if httpx.get(f"{url}/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        else:
            raise AssertionError("witness did not start")
        yield RunningWitness(url, vkey, data_dir)
    finally:
        process.terminate()
        process.wait(timeout=20)
