"""Recompute the read models from the verified events and name the first stored row that differs.

``provledger verify --read-models``: an edited span text or a flipped Merkle node does not
break any event's signature, so ``verify`` alone passes while the service serves the edit.
This check rebuilds the registry and receipts read models from the events (re-verifying each
signature and chain link, as :mod:`projections.replay` does) into a scratch SQLite file, up to
the positions the stored read models claim, and walks both in primary-key order. The retrieval
tables are checked the same way, from the registry rebuilt up to the retrieval projection's
position: every column but the ranker's model output (``vector``, ``tokens``, ``model``, which
only re-embedding could give; ``provledger projections rebuild`` makes them again). The
transparency log is checked level by level: its leaves against the stored events' leaf hashes
(RFC 9162 section 2.1.1), each higher level against the hashes of the level below (already
checked), and every checkpoint's root against its signed note and the checked nodes.
"""

from __future__ import annotations

import hmac
import json
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from eventsourcing.persistence import ApplicationRecorder
from sqlalchemy import (
    Connection,
    Engine,
    Row,
    String,
    Table,
    create_engine,
    func,
    select,
)

from ledger.audit.log_verify import iter_pages
from ledger.crypto.checkpoint import parse_note, verify_note
from ledger.crypto.merkle import leaf_hash, node_hash
from ledger.crypto.merkle_log import root_from_nodes, root_node_ids
from ledger.crypto.signing import Keyring
from ledger.errors import CheckpointError
from ledger.eventlog.store import SignedMapper
from projections.catalog import REPLAYED
from projections.digest import tables_digest
from projections.log_rows import read_rows
from projections.replay import replay
from projections.retrieval_check import CHECKED_TABLES, MODEL_COLUMNS, derive_retrieval
from projections.schema import (
    RETRIEVAL_TABLES,
    checkpoints,
    merkle_leaves,
    merkle_nodes,
    tracking,
)
from projections.transparency_queries import read_nodes

ATTEMPTS = 3
_encode = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode


@dataclass(frozen=True)
class RowDifference:
    """The first stored row that is not what the verified events give."""

    table: str
    key: dict[str, Any]
    detail: str

    def __str__(self) -> str:
        key = ", ".join(f"{name}={value!r}" for name, value in self.key.items())
        return f"table {self.table}, row ({key}): {self.detail}"


@dataclass(frozen=True)
class ReadModelReport:
    """What ``verify --read-models`` found."""

    registry_position: int
    receipts_position: int
    leaves: int
    checkpoints: int
    digest: str
    """Digest of the registry and receipts tables recomputed from the events."""
    difference: RowDifference | None

    @property
    def ok(self) -> bool:
        """True when every stored row matches."""
        return self.difference is None


def _positions(engine: Engine) -> dict[str, int]:
    with engine.connect() as conn:
        rows = conn.execute(select(tracking.c.projection, tracking.c.position))
        return {str(name): int(position) for name, position in rows}


def _streaming(engine: Engine) -> Connection:
    """A connection whose results are read as they are walked (server-side cursors on
    PostgreSQL), so a large table is never held in memory whole."""
    return engine.connect().execution_options(stream_results=True, max_row_buffer=2000)


def _ordered(table: Table, dialect: str) -> Any:
    """``SELECT *`` in primary-key order, text compared byte-wise on both backends (PostgreSQL's
    ``C`` collation orders UTF-8 as SQLite's default ``BINARY`` does)."""
    order = [
        column.collate("C")
        if dialect == "postgresql" and isinstance(column.type, String)
        else column
        for column in table.primary_key.columns
    ]
    return select(table).order_by(*order)


def _key(table: Table, row: Row[Any]) -> tuple[Any, ...]:
    return tuple(getattr(row, column.name) for column in table.primary_key.columns)


def _key_dict(table: Table, key: tuple[Any, ...]) -> dict[str, Any]:
    return {
        column.name: value for column, value in zip(table.primary_key.columns, key, strict=True)
    }


def _sort_key(key: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(value.encode() if isinstance(value, str) else value for value in key)


def _shown(value: Any) -> str:
    text = _encode(value)
    return text if len(text) <= 120 else text[:117] + "..."


def compare_table(
    table: Table, stored: Engine, expected: Engine, skip: frozenset[str] = frozenset()
) -> RowDifference | None:
    """The first row of ``table`` whose stored values differ from the expected ones (the
    columns in ``skip`` aside)."""
    with _streaming(stored) as live, expected.connect() as scratch:
        have = iter(live.execute(_ordered(table, stored.dialect.name)))
        want = iter(scratch.execute(_ordered(table, "sqlite")))
        mine, theirs = next(have, None), next(want, None)
        while mine is not None or theirs is not None:
            if theirs is None or (
                mine is not None and _sort_key(_key(table, mine)) < _sort_key(_key(table, theirs))
            ):
                assert mine is not None
                return RowDifference(
                    table.name, _key_dict(table, _key(table, mine)), "row not in the events"
                )
            if mine is None or _sort_key(_key(table, theirs)) < _sort_key(_key(table, mine)):
                return RowDifference(
                    table.name, _key_dict(table, _key(table, theirs)), "row missing"
                )
            for column in table.columns:
                if column.name in skip:
                    continue
                found, wanted = getattr(mine, column.name), getattr(theirs, column.name)
                if _encode(found) != _encode(wanted):
                    return RowDifference(
                        table.name,
                        _key_dict(table, _key(table, mine)),
                        f"column {column.name} is {_shown(found)}, "
                        f"the events give {_shown(wanted)}",
                    )
            mine, theirs = next(have, None), next(want, None)
    return None


def _compare_replayed(
    recorder: ApplicationRecorder,
    mapper: SignedMapper,
    keyring: Keyring,
    stored: Engine,
    position: int,
    tables: Sequence[Table],
) -> tuple[str, RowDifference | None]:
    """Replay the verified events up to ``position`` and compare ``tables`` with the stored
    (the retrieval tables derived from the replayed registry, their model columns aside)."""
    with tempfile.TemporaryDirectory(prefix="provledger-check-") as work:
        result = replay(recorder, mapper, keyring, Path(work), until_position=position)
        expected = create_engine(f"sqlite+pysqlite:///{result.database}")
        try:
            if any(table in RETRIEVAL_TABLES for table in tables):
                derive_retrieval(expected)
            for table in tables:
                skip = MODEL_COLUMNS if table in RETRIEVAL_TABLES else frozenset()
                difference = compare_table(table, stored, expected, skip)
                if difference is not None:
                    return "", difference
            digested = [t for t in tables if t not in RETRIEVAL_TABLES]
            return tables_digest(expected, digested) if digested else "", None
        finally:
            expected.dispose()


def _level(conn: Any, level: int) -> Iterator[tuple[int, bytes]]:
    rows = conn.execute(
        select(merkle_nodes.c.idx, merkle_nodes.c.hash)
        .where(merkle_nodes.c.level == level)
        .order_by(merkle_nodes.c.idx)
    )
    return ((int(idx), bytes(value)) for idx, value in rows)


def _node_difference(level: int, idx: int, detail: str) -> RowDifference:
    return RowDifference(merkle_nodes.name, {"level": level, "idx": idx}, detail)


def _check_leaves(
    recorder: ApplicationRecorder, stored: Engine, position: int
) -> tuple[int, RowDifference | None]:
    """Leaves and level-0 nodes against the stored events up to ``position``."""
    events = (e for e in iter_pages(partial(read_rows, recorder)) if e.id <= position)
    leaves = select(merkle_leaves).order_by(merkle_leaves.c.leaf_index)
    count = 0
    with _streaming(stored) as conn:
        nodes = _level(conn, 0)
        for leaf in conn.execute(leaves):
            index = int(leaf.leaf_index)
            event = next(events, None)
            key = {"leaf_index": index}
            if event is None:
                return count, RowDifference(merkle_leaves.name, key, "leaf with no event")
            logged = (leaf.notification_id, leaf.originator_id, leaf.originator_version)
            actual = (event.id, event.originator_id, event.originator_version)
            if index != count or tuple(logged) != actual:
                return count, RowDifference(
                    merkle_leaves.name, key, f"names event {logged}, the log has {actual}"
                )
            node = next(nodes, None)
            if node is None or node[0] != index:
                return count, _node_difference(0, index, "leaf hash missing")
            if not hmac.compare_digest(node[1], leaf_hash(event.state)):
                return count, _node_difference(
                    0, index, f"is not the leaf hash of event {event.id}"
                )
            count += 1
        missing = next(events, None)
        if missing is not None:
            return count, RowDifference(
                merkle_leaves.name, {"leaf_index": count}, f"missing (event {missing.id})"
            )
        extra = next(nodes, None)
        if extra is not None:
            return count, _node_difference(0, extra[0], "node with no leaf")
    return count, None


def _check_levels(stored: Engine, size: int) -> RowDifference | None:
    """Each level above the leaves against the hashes of the (checked) level below."""
    level = 1
    with _streaming(stored) as conn:
        while (1 << level) <= size:
            below = _level(conn, level - 1)
            expected = size >> level
            idx = -1
            for found, value in _level(conn, level):
                if found >= expected:
                    return _node_difference(level, found, "node past the tree's size")
                if found != idx + 1:
                    return _node_difference(level, idx + 1, "node missing")
                idx = found
                left, right = next(below, None), next(below, None)
                if left is None or right is None or left[0] != 2 * idx:
                    return _node_difference(level, idx, "children missing")
                if not hmac.compare_digest(value, node_hash(left[1], right[1])):
                    return _node_difference(level, idx, "is not the hash of its two children")
            if idx + 1 != expected:
                return _node_difference(level, idx + 1, "node missing")
            level += 1
        extra = conn.execute(
            select(merkle_nodes.c.level, func.min(merkle_nodes.c.idx))
            .where(merkle_nodes.c.level >= level)
            .group_by(merkle_nodes.c.level)
        ).first()
    if extra is not None:
        return _node_difference(int(extra[0]), int(extra[1]), "node past the tree's size")
    return None


def _reader(nodes: dict[tuple[int, int], bytes]) -> Callable[[int, int], bytes]:
    def read(level: int, idx: int) -> bytes:
        return nodes[level, idx]

    return read


def _check_checkpoints(
    stored: Engine, size: int, trusted: Iterable[bytes]
) -> tuple[int, RowDifference | None]:
    """Every checkpoint: signed by a trusted key, its row equal to its note, its root the
    root of the checked nodes."""
    keys = list(trusted)
    count = 0
    with _streaming(stored) as conn:
        for row in conn.execute(select(checkpoints).order_by(checkpoints.c.size)):
            key = {"size": int(row.size)}
            try:
                claimed, _ = parse_note(row.note)
            except CheckpointError as exc:
                return count, RowDifference(checkpoints.name, key, f"malformed note: {exc}")
            signed = None
            for public_key in keys:
                try:
                    signed = verify_note(row.note, claimed.origin, public_key)
                    break
                except CheckpointError:
                    continue
            if signed is None:
                return count, RowDifference(
                    checkpoints.name, key, "note not signed by a trusted key"
                )
            if signed.size != row.size or not hmac.compare_digest(signed.root, bytes(row.root)):
                return count, RowDifference(
                    checkpoints.name, key, "row differs from its signed note"
                )
            if not 1 <= signed.size <= size:
                return count, RowDifference(checkpoints.name, key, f"size past the {size} leaves")
            nodes = read_nodes(conn, root_node_ids(signed.size))
            root = root_from_nodes(signed.size, _reader(nodes))
            if not hmac.compare_digest(root, signed.root):
                return count, RowDifference(
                    checkpoints.name, key, "signed root is not the root of the log's leaves"
                )
            count += 1
    return count, None


def check_read_models(
    recorder: ApplicationRecorder,
    mapper: SignedMapper,
    keyring: Keyring,
    stored: Engine,
) -> ReadModelReport:
    """Compare every stored read-model row with what the verified events give.

    A running service may move the read models on while they are compared: a difference
    found while the positions moved is checked again (up to three times).
    Raises :class:`ledger.errors.ReplayError` when an event fails verification on the way.
    """
    for _ in range(ATTEMPTS - 1):
        before = _positions(stored)
        report = _check_once(recorder, mapper, keyring, stored, before)
        if report.ok or _positions(stored) == before:
            return report
    return _check_once(recorder, mapper, keyring, stored, _positions(stored))


def _replayed_groups(positions: dict[str, int]) -> list[tuple[int, list[Table]]]:
    """The replayed read models' tables (``projections/catalog.py``), those of neighbours at
    the same position together: one replay compares them all."""
    groups: list[tuple[int, list[Table]]] = []
    for model in REPLAYED:
        position = positions.get(model.name, 0)
        if groups and groups[-1][0] == position:
            groups[-1][1].extend(model.tables)
        else:
            groups.append((position, list(model.tables)))
    return groups


def _check_once(
    recorder: ApplicationRecorder,
    mapper: SignedMapper,
    keyring: Keyring,
    stored: Engine,
    positions: dict[str, int],
) -> ReadModelReport:
    registry = positions.get("registry", 0)
    receipts = positions.get("receipts", 0)
    digest, difference = "", None
    for position, tables in _replayed_groups(positions):
        part, difference = _compare_replayed(recorder, mapper, keyring, stored, position, tables)
        digest = part if not digest else digest + " " + part
        if difference is not None:
            break
    if difference is None and "retrieval" in positions:
        _, difference = _compare_replayed(
            recorder, mapper, keyring, stored, positions["retrieval"], CHECKED_TABLES
        )
    leaves, checked = 0, 0
    if difference is None:
        leaves, difference = _check_leaves(recorder, stored, positions.get("transparency", 0))
    if difference is None:
        difference = _check_levels(stored, leaves)
    if difference is None:
        trusted = [record.public_key for record in keyring.records.values()]
        checked, difference = _check_checkpoints(stored, leaves, trusted)
    return ReadModelReport(registry, receipts, leaves, checked, digest, difference)
