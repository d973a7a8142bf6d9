"""`provledger audit log`: the event store against a signed checkpoint, with tampering."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from api.cli import main
from api.services import open_ledger
from api.settings import Settings
from ledger.crypto.canonical import canonical_json
from projections.schema import checkpoints
from projections.service import ReadSide
from projections.transparency_queries import NEWEST_CHECKPOINT
from tests.tamper import Tamperer


@pytest.fixture
def checkpoint_file(settings_env: Settings, tmp_path: Path) -> Path:
    """Six events, projected into the transparency log; the latest checkpoint saved."""
    runtime = open_ledger(settings_env)
    for name in ("a", "b", "c"):
        runtime.api_keys.issue(name, ["read"], "t")
        runtime.api_keys.revoke(name, "r", "t")
    read_side = ReadSide(runtime.ledger, runtime.database, settings_env.log_origin)
    read_side.catch_up()
    with read_side.db.sync.connect() as conn:
        note = (
            conn.execute(NEWEST_CHECKPOINT.with_only_columns(checkpoints.c.note)).scalars().first()
        )
    read_side.close()
    runtime.close()
    path = tmp_path / "checkpoint.txt"
    assert note is not None
    path.write_text(note)
    return path


def _audit(path: Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["audit", "log", "--checkpoint", str(path)])
    return result.exit_code, result.output


def _tamper(settings: Settings):  # type: ignore[no-untyped-def]
    runtime = open_ledger(settings)
    return runtime, Tamperer(runtime)


def test_an_intact_store_reproduces_the_checkpoint(checkpoint_file: Path) -> None:
    code, output = _audit(checkpoint_file)
    assert code == 0, output
    assert output.startswith("OK: 6 stored events reproduce the checkpoint of size 6")


def test_detects_an_edited_event_row(settings_env: Settings, checkpoint_file: Path) -> None:
    runtime, tamper = _tamper(settings_env)
    document = json.loads(tamper.state(3))
    document["body"]["actor"] = "someone-else"
    tamper.set_state(3, canonical_json(document))
    runtime.close()

    code, output = _audit(checkpoint_file)

    assert code == 1
    assert "FAILED: the stored events give root" in output
    assert "notification 3 (leaf 2) was edited" in output


def test_detects_a_deleted_event_row(settings_env: Settings, checkpoint_file: Path) -> None:
    runtime, tamper = _tamper(settings_env)
    tamper.delete(2)
    runtime.close()

    code, output = _audit(checkpoint_file)

    assert code == 1
    assert "notification 2 (leaf 1) is in the log but was deleted from the event store" in output


def test_detects_a_truncated_log(settings_env: Settings, checkpoint_file: Path) -> None:
    runtime, tamper = _tamper(settings_env)
    tamper.delete(6)
    tamper.delete(5)
    runtime.close()

    code, output = _audit(checkpoint_file)

    assert code == 1
    assert "log truncated: the store holds 4 events but the checkpoint commits to 6" in output
