"""`provledger ingest`, `projections rebuild` and `project` on both backends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner

from api.cli import main
from api.services import open_ledger
from api.settings import Settings
from projections.service import ReadSide


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def _corpus(root: Path) -> Path:
    docs = root / "corpus"
    (docs / "policies").mkdir(parents=True)
    (docs / "policies" / "returns.md").write_text(
        "# Returns\n\nItems may be returned. Dr. Lee agreed.\n"
    )
    (docs / "notes.txt").write_text("Revenue rose 2.2% in Q3. It fell in Q4.\n")
    (docs / "page.html").write_text("<h1>About</h1><p>We are a U.S. firm.</p>")
    (docs / "ignored.pdf").write_bytes(b"%PDF")
    (docs / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    return docs


def test_ingest_a_folder_then_again_unchanged_then_a_change(
    settings_env: Settings, tmp_path: Path
) -> None:
    docs = _corpus(tmp_path)

    code, output = _run("ingest", str(docs))
    assert code == 1  # the latin-1 file is not UTF-8
    assert "latin1.txt" in output
    skipped = "skipped 1 unsupported file (.pdf 1); ingest takes .htm, .html, .md, .txt"
    assert output.strip().splitlines()[-2:] == [
        "4 documents: 3 created, 0 new-version, 0 unchanged, 1 failed",
        skipped,
    ]

    (docs / "latin1.txt").unlink()
    code, output = _run("ingest", str(docs))
    assert code == 0, output
    assert output.strip().splitlines()[-2:] == [
        "3 documents: 0 created, 0 new-version, 3 unchanged, 0 failed",
        skipped,
    ]

    (docs / "notes.txt").write_text("Revenue rose 3.1% in Q3.\n")
    (docs / "scan.PNG").write_bytes(b"png")
    (docs / "Makefile").write_text("all:\n")
    code, output = _run("ingest", str(docs))
    assert output.strip().splitlines()[-2:] == [
        "3 documents: 0 created, 1 new-version, 2 unchanged, 0 failed",
        "skipped 3 unsupported files ((no extension) 1, .pdf 1, .png 1); "
        "ingest takes .htm, .html, .md, .txt",
    ]

    runtime = open_ledger(settings_env)
    read_side = ReadSide(runtime.ledger, runtime.database)
    try:
        assert read_side.registry.position() == runtime.ledger.last_position()
    finally:
        read_side.close()
        runtime.close()


def test_rebuild_prints_the_same_digest_twice(settings_env: Settings, tmp_path: Path) -> None:
    docs = _corpus(tmp_path)
    (docs / "latin1.txt").unlink()
    _run("ingest", str(docs))

    code, first = _run("projections", "rebuild")
    assert code == 0, first
    code, second = _run("projections", "rebuild")

    digest = first.strip().splitlines()[-1]
    assert digest.startswith("sha256:")
    assert second.strip().splitlines()[-1] == digest


def test_project_runs_as_its_own_process_and_stops_on_sigterm(
    settings_env: Settings, tmp_path: Path
) -> None:
    runtime = open_ledger(settings_env)
    from ledger.registry.source_desk import SourceDraft

    runtime.sources.register(
        "a", SourceDraft("One sentence. Two sentences.", "text/plain", "A"), "derived", "t"
    )
    last = runtime.ledger.last_position()
    runtime.close()
    cli = Path(sys.executable).parent / "provledger"
    process = subprocess.Popen([str(cli), "project", "--interval", "0.1"], env=dict(os.environ))
    try:
        runtime = open_ledger(settings_env)
        read_side = ReadSide(runtime.ledger, runtime.database)
        try:
            for _ in range(200):  # bounded wait for the other process to catch up
                if read_side.registry.position() == last:
                    break
                time.sleep(0.05)
            assert read_side.registry.position() == last
        finally:
            read_side.close()
            runtime.close()
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
