"""The README's "First steps" run as written, against a running service."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.e2e.live_service import VENV_BIN, markdown_block, running_service, service_env

README = Path(__file__).parents[2] / "README.md"


def test_the_readme_first_steps_run_as_written(tmp_path: Path) -> None:
    block = markdown_block(README, "## First steps", "sh")
    (tmp_path / ".venv").symlink_to(
        VENV_BIN.parent
    )  # the checkout's .venv, as scripts/serve left it
    documents = tmp_path / "my-documents"
    (documents / "notes").mkdir(parents=True)
    (documents / "notes" / "costs.md").write_text("# Costs\n\nCosts fell 3% in 2019.\n")
    (documents / "letter.txt").write_text("We thank our customers.\n")
    (documents / "scan.pdf").write_bytes(b"%PDF-1.7")

    with running_service(tmp_path / "provledger-data") as url:
        port = url.rsplit(":", 1)[1]
        script = block.replace("localhost:8000", f"127.0.0.1:{port}")
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            cwd=tmp_path,
            env=service_env(tmp_path / "elsewhere"),  # the block sets PROVLEDGER_DATA_DIR itself
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert '{"status":"ok"' in out
    assert '"keys":[{"kid":' in out
    assert '"source_id":"memo-1","version":1' in out
    assert '"topic":"provledger.source.registered"' in out
    assert "2 documents: 2 created, 0 new-version, 0 unchanged, 0 failed" in out
    assert "skipped 1 unsupported file (.pdf 1)" in out
    assert out.strip().splitlines()[-1].startswith("OK: ")
    assert not (tmp_path / "elsewhere").exists()
