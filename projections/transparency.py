"""The transparency log: every event, in notification order, is a leaf of an RFC 9162 tree.

Leaf data is the event's stored state (its RFC 8785 canonical signed bytes); the leaf hash is
SHA-256(0x00 || state). The projection stores every perfect-subtree hash (``merkle_nodes``:
level 0 are the leaves), maps leaves to notification ids, and after each batch signs a C2SP
``tlog-checkpoint`` note for the new size with the ledger's Ed25519 key (``checkpoints``; all
kept). Any root, inclusion or consistency proof is then O(log n) node reads.

New roots are computed from the tree's right edge held in memory plus the leaf hashes of the
events read from the store; no stored node is trusted to sign. When the edge is read back from
the database (at start, or after another process moved the log on), its root must equal the
root of the newest checkpoint, whose note signature is verified first: an edited node on the
edge is refused (:class:`TransparencyLogTampered`), never signed into a checkpoint.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Engine, func, insert, select

from ledger.crypto.checkpoint import Checkpoint, parse_note, sign_note, verify_note
from ledger.crypto.merkle import leaf_hash
from ledger.crypto.merkle_log import MerkleLog
from ledger.crypto.signing import SigningKey
from ledger.errors import CheckpointError, TransparencyLogTampered
from ledger.eventlog.application import Ledger
from ledger.eventlog.clock import format_time
from projections.database import bulk_insert
from projections.log_rows import read_rows
from projections.runner import Projection
from projections.schema import TRANSPARENCY_TABLES, checkpoints, merkle_leaves, merkle_nodes
from projections.transparency_queries import NEWEST_CHECKPOINT

_INSERT_CHECKPOINT = insert(checkpoints)
# The leaf count and the newest checkpoint's note in one statement: one snapshot on both
# backends. Leaves are written at indexes 0, 1, 2, ... so the count is the last index plus one,
# read from the end of the primary key; ``count(*)`` reads every leaf, and this runs whenever a
# process opens the log (at start and after every batch another process applied first). The
# size is checked against the newest signed checkpoint before anything is signed over it; a
# leaf row missing inside the log is named by `provledger verify --read-models`.
_SIZE_AND_NOTE = select(
    func.coalesce(select(func.max(merkle_leaves.c.leaf_index)).scalar_subquery() + 1, 0),
    NEWEST_CHECKPOINT.with_only_columns(checkpoints.c.note).scalar_subquery(),
)


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
    anchor_each_batch = True  # every event is a leaf: the first to see a store rolled back

    def __init__(
        self,
        engine: Engine,
        signing_key: SigningKey,
        origin: str,
        trusted_keys: Iterable[bytes] = (),
    ) -> None:
        self.engine = engine
        self.signing_key = signing_key
        self.origin = origin
        # Keys whose checkpoints the stored tree is checked against (earlier signing keys too).
        self.trusted_keys = [signing_key.public_key, *trusted_keys]
        self._log: MerkleLog | None = None
        self._nodes: list[tuple[int, int, bytes]] = []
        self._leaves: list[tuple[int, int, str, int]] = []
        self._last_position = 0

    def _open_log(self) -> MerkleLog:
        if self._log is None:
            with self.engine.connect() as conn:
                size, note = conn.execute(_SIZE_AND_NOTE).one()
            log = MerkleLog(node_reader(self.engine), int(size))
            if log.size:
                self._check_edge(log, note)
            self._log = log
        return self._log

    def _check_edge(self, log: MerkleLog, note: str | None) -> None:
        """The stored right edge must give the root the newest checkpoint signed."""
        if note is None:
            raise TransparencyLogTampered(
                f"the transparency log holds {log.size} leaves but no checkpoint"
            )
        checkpoint = self._verified(note)
        if checkpoint.size != log.size:
            raise TransparencyLogTampered(
                f"the transparency log holds {log.size} leaves but its newest checkpoint "
                f"is for {checkpoint.size}"
            )
        if not hmac.compare_digest(log.root(), checkpoint.root):
            raise TransparencyLogTampered(
                f"the stored Merkle nodes on the right edge of the tree of {log.size} leaves "
                "do not give the root signed in its checkpoint; refusing to sign over them "
                "(`provledger verify --read-models` names the node)"
            )

    def _verified(self, note: str) -> Checkpoint:
        try:
            checkpoint, _ = parse_note(note)
        except CheckpointError as exc:
            raise TransparencyLogTampered(f"the newest checkpoint is malformed: {exc}") from exc
        for public_key in self.trusted_keys:
            try:
                return verify_note(note, checkpoint.origin, public_key)
            except CheckpointError:
                continue
        raise TransparencyLogTampered(
            f"the newest checkpoint (size {checkpoint.size}) is not signed by a trusted key"
        )

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
