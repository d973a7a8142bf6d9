"""`provledger serve` as a real process: the command the container runs."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_serve_answers_health_and_logs_json_with_request_ids(tmp_path: Path) -> None:
    port = _free_port()
    env = {**os.environ, "PROVLEDGER_DATA_DIR": str(tmp_path / "data")}
    env.pop("PROVLEDGER_DATABASE_URL", None)
    cli = Path(sys.executable).parent / "provledger"
    process = subprocess.Popen(
        [str(cli), "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        response = None
        for _ in range(200):  # bounded wait for start-up
            try:
                response = httpx.get(
                    f"http://127.0.0.1:{port}/readyz", headers={"X-Request-ID": "probe-1"}
                )
                break
            except httpx.TransportError:
                time.sleep(0.05)
        assert response is not None, "service did not start"
        assert response.status_code == 200
        assert response.json()["status"] == "ready"
        assert (tmp_path / "data" / "keys" / "signing.pem").exists()
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=20)
    assert '"request_id": "probe-1"' in output
    assert '"path": "/readyz"' in output
    lines = [json.loads(line) for line in output.splitlines()]  # every line is JSON
    assert any(line["event"].startswith("Started server process") for line in lines)
    assert all(line["logger"] for line in lines)
