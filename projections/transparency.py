"""The transparency log: every event, in notification order, is a leaf of an RFC 9162 tree.

Leaf data is the event's stored state (its RFC 8785 canonical signed bytes); the leaf hash is
SHA-256(0x00 || state). The projection stores every perfect-subtree hash (``merkle_nodes``:
level 0 are the leaves), maps leaves to notification ids, and after each batch signs a C2SP
``tlog-checkpoint`` note for the new size with the ledger's Ed25519 key (``checkpoints``; all
kept). Any root, inclusion or consistency proof is then O(log n) node reads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Engine, func, insert, select

from ledger.application import Ledger
from ledger.checkpoint import Checkpoint, sign_note
from ledger.merkle import MerkleLog, leaf_hash
from ledger.signing import SigningKey
from ledger.store import format_time
from projections.database import bulk_insert
from projections.log_rows import read_rows
from projections.runner import Projection
from projections.schema import TRANSPARENCY_TABLES, checkpoints, merkle_leaves, merkle_nodes

_INSERT_CHECKPOINT = insert(checkpoints)


def node_reader(engine: Engine) -> Callable[[int, int], bytes]:
    """Read single nodes (used once per start-up, for the right edge of the tree)."""

    def read(level: int, index: int) -> bytes:
        with engine.connect() as conn:
            value = conn.execute(
                select(merkle_nodes.c.hash).where(
                    merkle_nodes.c.level == level, merkle_nodes.c.idx == index
                )
            ).scalar_one()
        return bytes(value)

    return read


class TransparencyProjection(Projection):
    """Appends each event as a leaf and signs a checkpoint after every batch."""

    name = "transparency"
    topics = ()
    decode = False
    batch_size = 2000  # leaves per transaction and per checkpoint when catching up

    def __init__(self, engine: Engine, signing_key: SigningKey, origin: str) -> None:
        self.engine = engine
        self.signing_key = signing_key
        self.origin = origin
        self._log: MerkleLog | None = None
        self._nodes: list[tuple[int, int, bytes]] = []
        self._leaves: list[tuple[int, int, str, int]] = []
        self._last_position = 0

    def _open_log(self) -> MerkleLog:
        if self._log is None:
            with self.engine.connect() as conn:
                size = conn.execute(select(func.count()).select_from(merkle_leaves)).scalar_one()
            self._log = MerkleLog(node_reader(self.engine), int(size))
        return self._log

    def select(self, ledger: Ledger, start: int, stop: int) -> Sequence[Any]:
        """Every event after ``start``, as plain rows (no domain event, no ``UUID``); every
        event is a leaf, so reading past ``stop`` only takes the newest sooner."""
        return read_rows(ledger.recorder, start, self.batch_size)

    def forget(self) -> None:
        """Drop the in-memory tree edge and unwritten rows (they are re-read on demand)."""
        self._log = None
        self._nodes.clear()
        self._leaves.clear()

    def apply(self, conn: Connection, event: Any, notification: Any) -> None:
        """Append the event's stored bytes (a :class:`LogRow`) as the next leaf."""
        log = self._open_log()
        index = log.size
        self._nodes.extend(log.append(leaf_hash(notification.state)))
        self._leaves.append(
            (
                index,
                notification.id,
                notification.originator_id,
                notification.originator_version,
            )
        )
        self._last_position = notification.id

    def flush(self, conn: Connection) -> None:
        """Write the batch's nodes and leaves, then sign a checkpoint for the new size."""
        if not self._leaves:
            return
        bulk_insert(conn, merkle_nodes, ("level", "idx", "hash"), self._nodes)
        bulk_insert(
            conn,
            merkle_leaves,
            ("leaf_index", "notification_id", "originator_id", "originator_version"),
            self._leaves,
        )
        self._nodes.clear()
        self._leaves.clear()
        log = self._open_log()
        root = log.root()
        checkpoint = Checkpoint(self.origin, log.size, root)
        conn.execute(
            _INSERT_CHECKPOINT,
            {
                "size": log.size,
                "root": root,
                "note": sign_note(checkpoint, self.origin, self.signing_key),
                "created_at": format_time(datetime.now(UTC)),
                "position": self._last_position,
            },
        )

    def reset(self, conn: Connection) -> None:
        """Delete the tree, its leaves and its checkpoints (a rebuild re-signs them)."""
        for table in reversed(TRANSPARENCY_TABLES):
            conn.execute(table.delete())
        self._log = None
