"""`provledger serve` as a real process on a free port, for tests that run documented commands
and scripts against it as a reader would (SQLite in a data dir of the test's)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

VENV_BIN = Path(sys.executable).parent
"""The bin folder of the environment running the tests: its ``provledger`` is the package's."""


def free_port() -> int:
    """A port nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def service_env(data_dir: Path) -> dict[str, str]:
    """The environment of the service and of the commands run beside it."""
    env = {**os.environ, "PROVLEDGER_DATA_DIR": str(data_dir)}
    env.pop("PROVLEDGER_DATABASE_URL", None)
    env.pop("PROVLEDGER_SIGNING_KEY_FILE", None)
    return env


@contextmanager
def running_service(data_dir: Path, log: Path | None = None) -> Iterator[str]:
    """Start the service, wait (bounded) until it is ready, yield its base URL, stop it;
    ``log`` keeps what it wrote (its JSON log lines)."""
    port = free_port()
    handle = None if log is None else log.open("wb")
    process = subprocess.Popen(
        [str(VENV_BIN / "provledger"), "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=service_env(data_dir),
        stdout=subprocess.DEVNULL if handle is None else handle,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):  # bounded wait for start-up
            if process.poll() is not None:
                raise RuntimeError(f"provledger serve exited with {process.returncode}")
            try:
                if httpx.get(f"{url}/readyz").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        else:
            raise RuntimeError("provledger serve did not become ready")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
        if handle is not None:
            handle.close()


def markdown_block(path: Path, after: str, language: str) -> str:
    """The first fenced block of ``language`` after the line ``after`` in a Markdown file."""
    text = path.read_text("utf-8")
    start = text.index(after)
    fence = text.index(f"```{language}\n", start) + len(f"```{language}\n")
    return text[fence : text.index("```", fence)]
