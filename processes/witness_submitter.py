"""Submits the transparency log's newest checkpoint to a witness and keeps its cosignature.

Runs after each catch-up of the read side (a follower). It starts believing the witness has
size 0 and learns the real size from a 409 answer, then sends the RFC 9162 consistency proof
from that size, built from the stored perfect-subtree nodes. It verifies the witness's
cosignature before keeping it. A witness that refuses (a rollback, a fork, a bad proof) is an
integrity alarm: logged at error and reported by ``/readyz``.
"""

from __future__ import annotations

import hmac
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import structlog
from sqlalchemy import Engine, select

from ledger.audit.witness import WitnessRefusal
from ledger.crypto.cosignature import Cosigned, WitnessKey, add_signature_lines, verify_cosignature
from ledger.crypto.merkle_log import consistency_proof_from_nodes, proof_node_ids_for_consistency
from ledger.errors import CheckpointError, WitnessError
from projections.schema import checkpoints
from projections.transparency_queries import read_nodes

log = structlog.get_logger("provledger.witness")

_ATTEMPTS = 4
RETRY_SECONDS = 5.0
"""After a witness did not answer or refused, wait this long before submitting again."""
_LATEST = select(checkpoints.c.size, checkpoints.c.root, checkpoints.c.note).order_by(
    checkpoints.c.size.desc()
)


class CheckpointWitness(Protocol):
    """What the submitter needs of a witness: :class:`~processes.witness_client.WitnessClient`."""

    def add_checkpoint(self, old_size: int, proof: Sequence[bytes], note: str) -> str:
        """Submit; return the cosignature line(s) or raise :class:`WitnessError`."""

    def close(self) -> None:
        """Release connections."""


@dataclass(frozen=True)
class WitnessStatus:
    """What ``/readyz`` reports about the witness."""

    state: str
    """``pending`` (nothing cosigned yet), ``cosigned``, ``unavailable`` or ``refused``."""
    witnessed_size: int | None
    """The newest size the witness cosigned for this log, as far as this process knows."""
    detail: str
    reason: str | None = None

    def as_json(self) -> dict[str, object]:
        """The ``witness`` member of the readiness response."""
        return {
            "state": self.state,
            "witnessed_size": self.witnessed_size,
            "reason": self.reason,
            "detail": self.detail,
        }


class WitnessSubmitter:
    """Keeps one witness's cosignature of the newest checkpoint."""

    def __init__(
        self, engine: Engine, client: CheckpointWitness, witness: WitnessKey, origin: str
    ) -> None:
        self.engine = engine
        self.client = client
        self.witness = witness
        self.origin = origin
        self._lock = threading.Lock()
        self._witness_size = 0
        self._cosigned: Cosigned | None = None
        self._next_attempt = 0.0
        self.status = WitnessStatus("pending", None, "no checkpoint submitted yet")

    def run_once(self) -> None:
        """Submit the newest checkpoint unless the witness has already cosigned it (or did
        not answer less than :data:`RETRY_SECONDS` ago)."""
        with self._lock:
            latest = self._latest()
            if latest is None or time.monotonic() < self._next_attempt:
                return
            if self.cosignature_for(latest[0], latest[1]) is not None:
                return
            self._submit(latest[0], latest[2])

    def _latest(self) -> tuple[int, bytes, str] | None:
        with self.engine.connect() as conn:
            row = conn.execute(_LATEST.limit(1)).first()
        return None if row is None else (int(row.size), bytes(row.root), str(row.note))

    def cosignature_for(self, size: int, root: bytes) -> str | None:
        """The witness's cosignature line of the checkpoint ``(size, root)``, if it has one."""
        cosigned = self._cosigned
        if (
            cosigned is None
            or cosigned.checkpoint.size != size
            or not hmac.compare_digest(cosigned.checkpoint.root, root)
        ):
            return None
        return cosigned.line

    def close(self) -> None:
        """Close the HTTP client."""
        self.client.close()

    def _proof(self, old: int, size: int) -> list[bytes]:
        if old in (0, size):
            return []
        with self.engine.connect() as conn:
            nodes = read_nodes(conn, proof_node_ids_for_consistency(old, size))
        return consistency_proof_from_nodes(old, size, lambda level, idx: nodes[level, idx])

    def _refused(self, reason: WitnessRefusal, detail: str) -> None:
        state = "unavailable" if reason is WitnessRefusal.UNAVAILABLE else "refused"
        self._next_attempt = time.monotonic() + RETRY_SECONDS
        if state == "refused":
            log.error("witness_refused", reason=reason.value, detail=detail)
        else:
            log.warning("witness_unavailable", detail=detail)
        self.status = WitnessStatus(state, self.status.witnessed_size, detail, reason.value)

    def _submit(self, size: int, note: str) -> None:
        for _ in range(_ATTEMPTS):
            old = self._witness_size
            if old > size:
                newer = self._latest()  # another process may have signed and submitted it
                if newer is not None and newer[0] >= old:
                    size, _, note = newer
                    continue
                self._refused(
                    WitnessRefusal.ROLLBACK,
                    f"the witness cosigned size {old} but the log's newest checkpoint has "
                    f"size {size}: the log was rolled back or truncated",
                )
                return
            try:
                lines = self.client.add_checkpoint(old, self._proof(old, size), note)
            except WitnessError as exc:
                if exc.reason is WitnessRefusal.OLD_SIZE_MISMATCH and exc.size is not None:
                    if exc.size != old:
                        self._witness_size = exc.size  # learn its size; retry with a proof
                        continue
                    exc = WitnessError(
                        WitnessRefusal.FORK,
                        f"the witness cosigned another root at size {old}: the log forked",
                    )
                self._refused(WitnessRefusal(exc.reason), exc.message)
                return
            try:
                cosigned = verify_cosignature(add_signature_lines(note, lines), self.witness)
            except CheckpointError as exc:
                self._refused(WitnessRefusal.BAD_COSIGNATURE, str(exc))
                return
            self._cosigned = cosigned
            self._witness_size = size
            self._next_attempt = 0.0
            self.status = WitnessStatus("cosigned", size, f"cosigned at {cosigned.timestamp}")
            return
        self._refused(
            WitnessRefusal.OLD_SIZE_MISMATCH,
            f"the witness's size kept changing over {_ATTEMPTS} attempts",
        )
