"""Read-only queries of the transparency log: checkpoints, leaves and proofs.

Each proof reads exactly the O(log n) perfect-subtree nodes it needs, in one query. Proofs run
on the sync engine (the API calls them from its thread pool): for these small, hot queries
that is about twice as fast as the async driver round trip.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    LargeBinary,
    and_,
    bindparam,
    func,
    literal,
    select,
    tuple_,
    type_coerce,
    union_all,
)
from sqlalchemy.ext.asyncio import AsyncConnection

from ledger.crypto.merkle_log import (
    NodeId,
    consistency_proof_from_nodes,
    inclusion_proof_from_nodes,
    proof_node_ids_for_consistency,
    proof_node_ids_for_inclusion,
    root_from_nodes,
    root_node_ids,
)
from ledger.errors import InvalidInput, NotFound
from projections.schema import checkpoints, merkle_leaves, merkle_nodes


def b64(value: bytes) -> str:
    """Standard base64, as in checkpoints and proofs."""
    return base64.b64encode(value).decode("ascii")


NEWEST_CHECKPOINT = select(checkpoints).order_by(checkpoints.c.size.desc()).limit(1)
"""The newest checkpoint: one row read from the end of the primary key. Its readers narrow it
(``with_only_columns``, ``where``) rather than write it again: without the limit PostgreSQL
sorts every checkpoint and sends them all."""


def newest_checkpoint(conn: Connection) -> dict[str, Any] | None:
    """The newest checkpoint's row (size, root, note, created_at), or None before the first."""
    row = conn.execute(NEWEST_CHECKPOINT).mappings().first()
    return None if row is None else dict(row)


def newest_checkpoint_time(conn: Connection) -> tuple[int, str] | None:
    """The newest checkpoint's size and when it was signed (two columns of one row), or None."""
    query = NEWEST_CHECKPOINT.with_only_columns(checkpoints.c.size, checkpoints.c.created_at)
    row = conn.execute(query).first()
    return None if row is None else (int(row.size), str(row.created_at))


async def latest_checkpoint(conn: AsyncConnection, at: str | None = None) -> dict[str, Any]:
    """The newest checkpoint (or the newest created at or before ``at``)."""
    query = NEWEST_CHECKPOINT
    if at is not None:
        query = query.where(checkpoints.c.created_at <= at)
    row = (await conn.execute(query)).mappings().first()
    if row is None:
        raise NotFound("no checkpoint yet" if at is None else f"no checkpoint at or before {at}")
    return dict(row)


_NODES = select(merkle_nodes).where(
    tuple_(merkle_nodes.c.level, merkle_nodes.c.idx).in_(bindparam("ids", expanding=True))
)
_NODE_CHUNK = 300


def read_nodes(conn: Connection, ids: Iterable[NodeId]) -> dict[NodeId, bytes]:
    """The stored nodes among ``ids``, at most 300 per query.

    PostgreSQL gets one compiled statement, ``(level, idx) IN (...)``, with only its list of
    pairs expanded per call. SQLite plans that row-value ``IN`` as a scan of the whole table,
    so there each pair is its own ``(level = ? AND idx = ?)`` term, which it answers with
    one primary-key search per term; the statement text depends only on the number of pairs,
    so the driver's statement cache reuses it.
    """
    unique = sorted(set(ids))
    found: dict[NodeId, bytes] = {}
    sqlite = conn.dialect.name == "sqlite"
    for offset in range(0, len(unique), _NODE_CHUNK):
        chunk = unique[offset : offset + _NODE_CHUNK]
        if sqlite:
            terms = " OR ".join(["(level = ? AND idx = ?)"] * len(chunk))
            rows = conn.exec_driver_sql(
                f"SELECT level, idx, hash FROM {merkle_nodes.name} WHERE {terms}",  # noqa: S608
                tuple(value for pair in chunk for value in pair),
            )
        else:
            rows = conn.execute(_NODES, {"ids": chunk})
        for level, idx, value in rows:
            found[int(level), int(idx)] = bytes(value)
    return found


def leaf_index_of(conn: Connection, notification_id: int) -> int:
    """The leaf of an event (notification id)."""
    value = conn.execute(
        select(merkle_leaves.c.leaf_index).where(merkle_leaves.c.notification_id == notification_id)
    ).scalar()
    if value is None:
        raise NotFound(f"notification {notification_id} is not in the log (yet)")
    return int(value)


def _check_size(conn: Connection, size: int, field: str) -> None:
    current = int(conn.execute(select(func.max(checkpoints.c.size))).scalar() or 0)
    if not 1 <= size <= current:
        raise InvalidInput(field, "range", f"{field} must be between 1 and the tree size {current}")


_SIZE_MARK, _LEAF_MARK = -1, -2
# The nodes of a proof, the tree size and the leaf's notification id, in one round trip.
_INCLUSION = union_all(
    _NODES,
    select(
        literal(_SIZE_MARK),
        func.coalesce(func.max(checkpoints.c.size), 0),
        type_coerce(None, LargeBinary),
    ),
    select(
        literal(_LEAF_MARK), merkle_leaves.c.notification_id, type_coerce(None, LargeBinary)
    ).where(merkle_leaves.c.leaf_index == bindparam("index")),
)


_SIZE_AND_LEAF = select(
    func.coalesce(select(func.max(checkpoints.c.size)).scalar_subquery(), 0),
    select(merkle_leaves.c.notification_id)
    .where(merkle_leaves.c.leaf_index == bindparam("index"))
    .scalar_subquery(),
)


def inclusion(conn: Connection, index: int, size: int) -> dict[str, Any]:
    """The inclusion proof of leaf ``index`` in the tree of ``size`` leaves (one query on
    PostgreSQL, two on SQLite)."""
    in_range = 0 <= index < size
    ids = (
        [*proof_node_ids_for_inclusion(index, size), (0, index), *root_node_ids(size)]
        if in_range
        else []
    )
    nodes: dict[NodeId, bytes] = {}
    current, notification = 0, None
    if conn.dialect.name == "sqlite":  # in process: no round trip to save (see read_nodes)
        current, notification = conn.execute(_SIZE_AND_LEAF, {"index": index}).one()
        current = int(current)
        nodes = read_nodes(conn, ids)
    else:
        for level, idx, value in conn.execute(
            _INCLUSION, {"ids": sorted(set(ids)), "index": index}
        ):
            if level == _SIZE_MARK:
                current = int(idx)
            elif level == _LEAF_MARK:
                notification = int(idx)
            else:
                nodes[int(level), int(idx)] = bytes(value)
    if not 1 <= size <= current:
        raise InvalidInput("size", "range", f"size must be between 1 and the tree size {current}")
    if not in_range:
        raise InvalidInput("index", "range", f"index must be between 0 and {size - 1}")

    def read(level: int, idx: int) -> bytes:
        return nodes[level, idx]

    return {
        "index": index,
        "size": size,
        "notification_id": notification,
        "leaf_hash": b64(nodes[0, index]),
        "proof": [b64(h) for h in inclusion_proof_from_nodes(index, size, read)],
        "root": b64(root_from_nodes(size, read)),
    }


def consistency(conn: Connection, first: int, second: int) -> dict[str, Any]:
    """The consistency proof between the trees of ``first`` and ``second`` leaves."""
    _check_size(conn, second, "second")
    if not 1 <= first <= second:
        raise InvalidInput("first", "range", f"first must be between 1 and second ({second})")
    ids = (
        proof_node_ids_for_consistency(first, second) + root_node_ids(first) + root_node_ids(second)
    )
    nodes = read_nodes(conn, ids)

    def read(level: int, idx: int) -> bytes:
        return nodes[level, idx]

    return {
        "first": first,
        "second": second,
        "proof": [b64(h) for h in consistency_proof_from_nodes(first, second, read)],
        "first_root": b64(root_from_nodes(first, read)),
        "second_root": b64(root_from_nodes(second, read)),
    }


def logged_leaves(engine: Engine) -> Callable[[int], list[tuple[int, bytes]]]:
    """The transparency log's own record of leaves ``0..size-1`` (for naming tampering)."""

    def read(size: int) -> list[tuple[int, bytes]]:
        with engine.connect() as conn:
            rows = conn.execute(
                select(merkle_leaves.c.notification_id, merkle_nodes.c.hash)
                .join(
                    merkle_nodes,
                    and_(
                        merkle_nodes.c.level == 0, merkle_nodes.c.idx == merkle_leaves.c.leaf_index
                    ),
                )
                .where(merkle_leaves.c.leaf_index < size)
                .order_by(merkle_leaves.c.leaf_index)
            ).all()
        return [(int(n), bytes(h)) for n, h in rows]

    return read
