"""An event store rolled back (or restored from an older backup) under read models that were
not: refused at start and on every catch-up, naming the positions; a rebuild recovers."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from ledger.crypto.merkle import leaf_hash, root_hash
from ledger.errors import ReadModelsAhead
from ledger.registry.source_desk import SourceDraft
from ledger.runtime import LedgerRuntime
from projections import tracking
from projections.schema import checkpoints, sources
from projections.service import ReadSide
from projections.transparency_queries import NEWEST_CHECKPOINT
from tests.tamper import Tamperer

TEXT = "Revenue rose 2.2% to $4.5 million. No dividend was declared."


def _register(runtime: LedgerRuntime, source_id: str) -> None:
    runtime.sources.register(
        source_id, SourceDraft(f"{TEXT} ({source_id})", "text/plain", source_id), "derived", "t"
    )


def _roll_back(runtime: LedgerRuntime, to: int) -> None:
    """Delete every stored event after notification ``to`` (the read models are kept)."""
    tamperer = Tamperer(runtime)
    for notification_id in range(runtime.ledger.last_position(), to, -1):
        tamperer.delete(notification_id)


def _source_ids(read_side: ReadSide) -> list[str]:
    with read_side.db.sync.connect() as conn:
        return sorted(conn.execute(select(sources.c.source_id)).scalars())


def _read_side(runtime: LedgerRuntime) -> ReadSide:
    return ReadSide(runtime.ledger, runtime.database, keyring=runtime.keyring)


@pytest.fixture
def rolled_back(runtime: LedgerRuntime) -> tuple[int, int]:
    """Two sources projected, then the second one's events deleted from the store."""
    _register(runtime, "kept")
    kept = runtime.ledger.last_position()
    _register(runtime, "lost")
    end = runtime.ledger.last_position()
    read_side = _read_side(runtime)
    read_side.catch_up()
    read_side.close()
    _roll_back(runtime, kept)
    return kept, end


def test_read_side_refuses_to_start_on_a_store_that_ends_before_its_positions(
    runtime: LedgerRuntime, rolled_back: tuple[int, int]
) -> None:
    kept, end = rolled_back
    read_side = _read_side(runtime)
    try:
        with pytest.raises(ReadModelsAhead) as caught:
            read_side.catch_up()
    finally:
        read_side.close()
    message = str(caught.value)
    assert f"is at notification {end} but the event store ends at {kept}" in message
    assert "`provledger projections rebuild`" in message


def test_a_running_read_side_refuses_the_next_catch_up_after_a_rollback(
    runtime: LedgerRuntime,
) -> None:
    _register(runtime, "kept")
    kept = runtime.ledger.last_position()
    _register(runtime, "lost")
    read_side = _read_side(runtime)
    try:
        read_side.catch_up()
        _roll_back(runtime, kept)
        for runner in read_side.runners:
            with pytest.raises(ReadModelsAhead, match="but the event store ends at"):
                runner.catch_up()
    finally:
        read_side.close()


def test_new_events_written_over_the_lost_ids_are_refused_not_skipped(
    runtime: LedgerRuntime, rolled_back: tuple[int, int]
) -> None:
    _, end = rolled_back
    _register(runtime, "new-one")  # SQLite hands out the lost notification ids again
    _register(runtime, "new-two")
    assert runtime.ledger.last_position() >= end
    read_side = _read_side(runtime)
    try:
        with pytest.raises(ReadModelsAhead) as caught:
            read_side.registry.catch_up()
        assert _source_ids(read_side) == ["kept", "lost"]  # nothing was applied past it
    finally:
        read_side.close()
    assert f"read model 'registry' is at notification {end}" in str(caught.value)
    assert "transparency log" in str(caught.value)


def test_projections_rebuild_recovers_from_a_rolled_back_store(
    runtime: LedgerRuntime, rolled_back: tuple[int, int]
) -> None:
    _, end = rolled_back
    _register(runtime, "new-one")
    read_side = _read_side(runtime)
    try:
        tracking.advance(read_side.db.sync, "expiry", end)  # a log follower past the restore
        read_side.rebuild()
        assert read_side.transparency_rebuilt
        assert tracking.position(read_side.db.sync, "expiry") == 0  # it starts again
        read_side.catch_up()
        assert _source_ids(read_side) == ["kept", "new-one"]
        with read_side.db.sync.connect() as conn:
            size, root = conn.execute(
                NEWEST_CHECKPOINT.with_only_columns(checkpoints.c.size, checkpoints.c.root)
            ).first() or (0, b"")
    finally:
        read_side.close()
    leaves = [leaf_hash(row.state) for row in runtime.ledger.read_log(0, 1000)]
    assert size == len(leaves)
    assert bytes(root) == root_hash(leaves)


def test_a_rollback_the_transparency_log_finds_stops_every_read_model_of_the_process(
    runtime: LedgerRuntime,
) -> None:
    _register(runtime, "kept")
    kept = runtime.ledger.last_position()
    _register(runtime, "lost")
    read_side = _read_side(runtime)
    try:
        read_side.catch_up()
        _roll_back(runtime, kept)
        for n in range(3):  # past the old end again, over the lost ids on SQLite
            _register(runtime, f"new-{n}")
        with pytest.raises(ReadModelsAhead, match="read model 'transparency' is at notification"):
            read_side.transparency.catch_up()
        for runner in (read_side.registry, read_side.receipts):
            with pytest.raises(ReadModelsAhead, match="read model 'transparency'"):
                runner.catch_up()
        assert _source_ids(read_side) == ["kept", "lost"]
    finally:
        read_side.close()


def test_a_rebuild_sends_only_log_followers_past_the_end_back_to_the_start(
    runtime: LedgerRuntime,
) -> None:
    _register(runtime, "kept")
    end = runtime.ledger.last_position()
    read_side = _read_side(runtime)
    try:
        read_side.catch_up()
        tracking.advance(read_side.db.sync, "expiry", end + 5)
        tracking.advance(read_side.db.sync, "entailment", end)
        read_side.rebuild()
        assert not read_side.transparency_rebuilt
        assert tracking.position(read_side.db.sync, "expiry") == 0
        assert tracking.position(read_side.db.sync, "entailment") == end
    finally:
        read_side.close()
