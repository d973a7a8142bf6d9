"""A Merkle node edited in the read-model database is never signed into a checkpoint: new
roots come from the in-memory edge and the stored events, and an edge read back from the
database must give the root of the newest signed checkpoint, for a tree whose size (read from
the stored leaves) is the size that checkpoint signed."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import delete, insert, select, update

from ledger.crypto.checkpoint import Checkpoint, sign_note
from ledger.crypto.merkle import leaf_hash, root_hash
from ledger.crypto.merkle_log import root_node_ids
from ledger.crypto.signing import SigningKey
from ledger.errors import TransparencyLogTampered
from ledger.runtime import LedgerRuntime
from projections.schema import checkpoints, merkle_leaves, merkle_nodes
from projections.service import ReadSide
from projections.transparency_queries import NEWEST_CHECKPOINT


def _events(runtime: LedgerRuntime, count: int, prefix: str = "k") -> None:
    for n in range(count):
        runtime.api_keys.issue(f"{prefix}{n}", ["read"], "test:suite")


def _read_side(runtime: LedgerRuntime) -> ReadSide:
    return ReadSide(runtime.ledger, runtime.database, keyring=runtime.keyring)


def _flip(read_side: ReadSide, level: int, index: int) -> None:
    """Invert the first byte of one stored node, as an attacker with database access could."""
    with read_side.db.sync.begin() as conn:
        value = bytes(
            conn.execute(
                select(merkle_nodes.c.hash).where(
                    merkle_nodes.c.level == level, merkle_nodes.c.idx == index
                )
            ).scalar_one()
        )
        conn.execute(
            update(merkle_nodes)
            .where(merkle_nodes.c.level == level, merkle_nodes.c.idx == index)
            .values(hash=bytes([value[0] ^ 0xFF]) + value[1:])
        )


def _newest_checkpoint(read_side: ReadSide) -> tuple[int, bytes]:
    with read_side.db.sync.connect() as conn:
        size, root = conn.execute(
            NEWEST_CHECKPOINT.with_only_columns(checkpoints.c.size, checkpoints.c.root)
        ).first() or (0, b"")
    return int(size), bytes(root)


def _true_root(runtime: LedgerRuntime) -> bytes:
    return root_hash([leaf_hash(n.state) for n in runtime.ledger.read_log(0, 1000)])


def _reopened_after(
    runtime: LedgerRuntime, events: int, tamper: Callable[[ReadSide], None]
) -> ReadSide:
    """Log ``events`` events, ``tamper`` with the stored tree, close that read side, write one
    more event and open a fresh read side: what a restarted service reads back."""
    _events(runtime, events)
    first = _read_side(runtime)
    first.catch_up()
    tamper(first)
    first.close()
    _events(runtime, 1, prefix="later")
    return _read_side(runtime)


def _refused_at_start(
    runtime: LedgerRuntime, events: int, tamper: Callable[[ReadSide], None]
) -> tuple[str, int]:
    """The refusal of the read side :func:`_reopened_after` opens, and the size of its newest
    checkpoint once refused (nothing past the tampered log signed)."""
    second = _reopened_after(runtime, events, tamper)
    try:
        with pytest.raises(TransparencyLogTampered) as caught:
            second.transparency.catch_up()
        newest = _newest_checkpoint(second)[0]
    finally:
        second.close()
    return str(caught.value), newest


@pytest.mark.parametrize("node", [(0, 0), (1, 0), (2, 0)], ids=["leaf", "level-1", "level-2"])
def test_a_flipped_node_off_the_edge_leaves_the_next_checkpoint_on_the_true_root(
    runtime: LedgerRuntime, node: tuple[int, int]
) -> None:
    _events(runtime, 8)
    read_side = _read_side(runtime)
    try:
        read_side.catch_up()
        _flip(read_side, *node)
        _events(runtime, 3, prefix="later")
        read_side.catch_up()
        size, root = _newest_checkpoint(read_side)
    finally:
        read_side.close()
    assert node not in root_node_ids(8)
    assert size == 11
    assert root == _true_root(runtime)


def test_a_flipped_edge_node_is_not_signed_by_a_running_read_side(
    runtime: LedgerRuntime,
) -> None:
    _events(runtime, 6)  # edge: (2, 0) and (1, 2)
    read_side = _read_side(runtime)
    try:
        read_side.catch_up()
        _flip(read_side, 1, 2)
        _events(runtime, 1, prefix="later")
        read_side.catch_up()
        size, root = _newest_checkpoint(read_side)
    finally:
        read_side.close()
    assert size == 7
    assert root == _true_root(runtime)


def test_a_flipped_edge_node_read_back_at_start_is_refused_and_nothing_is_signed(
    runtime: LedgerRuntime,
) -> None:
    refusal, newest = _refused_at_start(runtime, 6, lambda first: _flip(first, 2, 0))
    assert newest == 6
    assert "right edge of the tree of 6 leaves" in refusal
    assert "do not give the root signed in its checkpoint" in refusal


def test_a_checkpoint_re_signed_by_an_unknown_key_to_match_a_flipped_edge_is_refused(
    runtime: LedgerRuntime,
) -> None:

    def flip_and_re_sign(first: ReadSide) -> None:
        _flip(first, 2, 0)
        with first.db.sync.begin() as conn:
            forged = bytes(
                conn.execute(
                    select(merkle_nodes.c.hash).where(merkle_nodes.c.level == 2)
                ).scalar_one()
            )
            key = SigningKey.generate()
            note = sign_note(Checkpoint(first.origin, 4, forged), first.origin, key)
            conn.execute(
                update(checkpoints).where(checkpoints.c.size == 4).values(root=forged, note=note)
            )

    # 4 events: the edge is (2, 0) alone, so the root is that node
    refusal, _ = _refused_at_start(runtime, 4, flip_and_re_sign)
    assert refusal == "the newest checkpoint (size 4) is not signed by a trusted key"


def test_the_stored_edge_verifies_against_a_checkpoint_signed_before_a_key_rotation(
    runtime: LedgerRuntime,
) -> None:
    _events(runtime, 3)
    first = _read_side(runtime)
    first.catch_up()
    first.close()
    new_key, rotated = runtime.keystore.rotate()  # the old key stays, retired, in the keyring
    runtime.ledger.signing_key = new_key  # as after a restart with the rotated key
    second = ReadSide(runtime.ledger, runtime.database, keyring=rotated)
    try:
        _events(runtime, 1, prefix="later")
        second.transparency.catch_up()
        assert _newest_checkpoint(second)[0] == 4
    finally:
        second.close()


def test_projections_rebuild_replaces_a_tree_whose_edge_was_flipped(
    runtime: LedgerRuntime,
) -> None:
    second = _reopened_after(runtime, 6, lambda first: _flip(first, 1, 2))
    try:
        second.rebuild()
        assert second.transparency_rebuilt
        second.catch_up()
        size, root = _newest_checkpoint(second)
    finally:
        second.close()
    assert size == 7
    assert root == _true_root(runtime)


def _append_leaf(read_side: ReadSide) -> None:
    """A leaf row past the last, as an attacker with database access could add."""
    with read_side.db.sync.begin() as conn:
        conn.execute(
            insert(merkle_leaves).values(
                leaf_index=6, notification_id=10**9, originator_id="x", originator_version=1
            )
        )


def _drop_last_leaf(read_side: ReadSide) -> None:
    with read_side.db.sync.begin() as conn:
        conn.execute(delete(merkle_leaves).where(merkle_leaves.c.leaf_index == 5))


@pytest.mark.parametrize(
    ("tamper", "size"), [(_append_leaf, 7), (_drop_last_leaf, 5)], ids=["appended", "dropped"]
)
def test_a_leaf_row_added_or_dropped_at_the_end_is_refused_at_start(
    runtime: LedgerRuntime, tamper: Callable[[ReadSide], None], size: int
) -> None:
    refusal, newest = _refused_at_start(runtime, 6, tamper)
    assert newest == 6
    assert f"holds {size} leaves but its newest checkpoint is for 6" in refusal
