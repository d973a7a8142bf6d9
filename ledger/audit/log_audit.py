"""Audit the whole event store against a signed checkpoint.

Recomputes every leaf from the stored events (in notification order) and the root at the
checkpoint's size. A store that was edited, had rows deleted, or was truncated no longer
produces the checkpoint's root. When the transparency log's own record of each leaf is
available, the report names the first event that differs and how.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from eventsourcing.persistence import ApplicationRecorder

from ledger.audit.log_verify import iter_log
from ledger.crypto.checkpoint import Checkpoint, verify_note
from ledger.crypto.merkle import leaf_hash
from ledger.crypto.merkle_log import MemoryNodeStore, MerkleLog
from ledger.crypto.signing import Keyring
from ledger.errors import LedgerError

LoggedLeaves = Callable[[int], list[tuple[int, bytes]]]
"""Given a size, the logged ``(notification_id, leaf_hash)`` of leaves ``0..size-1``."""


@dataclass
class LogAudit:
    """What the audit found."""

    checkpoint: Checkpoint | None = None
    events: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the store reproduces the checkpoint."""
        return self.checkpoint is not None and not self.problems


def audit_log(
    recorder: ApplicationRecorder,
    keyring: Keyring,
    note: str,
    origin: str,
    logged: LoggedLeaves | None = None,
) -> LogAudit:
    """Check that the stored events reproduce the signed checkpoint ``note``."""
    audit = LogAudit()
    for record in keyring.records.values():
        try:
            audit.checkpoint = verify_note(note, origin, record.public_key, origin=origin)
            break
        except LedgerError:
            continue
    if audit.checkpoint is None:
        audit.problems.append("the checkpoint is not signed by a trusted key for " + origin)
        return audit
    size = audit.checkpoint.size
    store = MemoryNodeStore()
    log = MerkleLog(store.get)
    ids: list[int] = []
    hashes: list[bytes] = []
    for notification in iter_log(recorder):
        value = leaf_hash(notification.state)
        ids.append(notification.id)
        hashes.append(value)
        if log.size < size:
            store.put(log.append(value))
    audit.events = len(ids)
    if len(ids) < size:
        audit.problems.append(
            f"log truncated: the store holds {len(ids)} events but the checkpoint commits to {size}"
        )
    elif log.root() != audit.checkpoint.root:
        audit.problems.append(
            f"the stored events give root {log.root().hex()} at size {size}, but the checkpoint "
            f"says {audit.checkpoint.root.hex()}"
        )
    if audit.problems and logged is not None:
        audit.problems.extend(_locate(ids, hashes, logged(size)))
    return audit


def _locate(ids: list[int], hashes: list[bytes], logged: list[tuple[int, bytes]]) -> list[str]:
    stored = dict(zip(ids, hashes, strict=True))
    for index, (notification_id, logged_hash) in enumerate(logged):
        current = stored.get(notification_id)
        if current is None:
            return [
                f"notification {notification_id} (leaf {index}) is in the log but was deleted "
                "from the event store"
            ]
        if current != logged_hash:
            return [
                f"notification {notification_id} (leaf {index}) was edited: its stored bytes no "
                "longer hash to the logged leaf"
            ]
    return []
