"""Two read sides on one ledger, as two processes would have: each keeps its own position and
tree edge in memory; a batch the other already wrote is a conflict, after which the stale one
re-reads and goes on. Rows no runner accounts for are refused, not retried forever."""

from __future__ import annotations

import pytest
from sqlalchemy import func, insert, select

from ledger.crypto.checkpoint import verify_note
from ledger.crypto.merkle import leaf_hash, root_hash
from ledger.errors import ReadModelsAhead
from ledger.runtime import LedgerRuntime
from projections.schema import checkpoints, merkle_leaves, merkle_nodes
from projections.service import ReadSide


def _events(runtime: LedgerRuntime, count: int, prefix: str) -> None:
    for n in range(count):
        runtime.api_keys.issue(f"{prefix}{n}", ["read"], "test:suite")


def _read_side(runtime: LedgerRuntime) -> ReadSide:
    return ReadSide(runtime.ledger, runtime.database, keyring=runtime.keyring)


def test_a_stale_read_side_rereads_after_another_wrote_its_batch(runtime: LedgerRuntime) -> None:
    _events(runtime, 3, "a")
    first, second = _read_side(runtime), _read_side(runtime)
    try:
        first.catch_up()  # its tree edge and positions are now in memory
        _events(runtime, 2, "b")
        second.catch_up()  # moves every read model on behind the first one's back
        _events(runtime, 2, "c")
        assert first.catch_up() == runtime.ledger.last_position()
        with first.db.sync.connect() as conn:
            notes = conn.execute(select(checkpoints.c.note).order_by(checkpoints.c.size)).all()
            leaves = conn.execute(select(func.count()).select_from(merkle_leaves)).scalar()
    finally:
        first.close()
        second.close()
    hashes = [leaf_hash(n.state) for n in runtime.ledger.read_log(0, 100)]
    assert leaves == len(hashes) == 7
    signed = [verify_note(n, first.origin, runtime.ledger.signing_key.public_key) for (n,) in notes]
    assert [c.size for c in signed] == [3, 5, 7]
    assert all(c.root == root_hash(hashes[: c.size]) for c in signed)


def test_rows_no_runner_accounts_for_are_refused_not_retried_forever(
    runtime: LedgerRuntime,
) -> None:
    _events(runtime, 2, "a")
    read_side = _read_side(runtime)
    try:
        read_side.catch_up()
        with read_side.db.sync.begin() as conn:  # a leaf past the tracked position
            conn.execute(insert(merkle_nodes).values(level=0, idx=2, hash=b"\x00" * 32))
        _events(runtime, 1, "b")
        with pytest.raises(ReadModelsAhead) as caught:
            read_side.transparency.catch_up()
    finally:
        read_side.close()
    assert str(caught.value).startswith(
        "read model 'transparency' at notification 2 already holds rows for the events after "
        "it (a duplicate key): "
    )
