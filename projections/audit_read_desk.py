"""The transparency log's reads: checkpoints, proofs, citation-chain bundles, and the checks
an auditor runs on them (``GET /v1/audit/...``, ``GET /v1/claims/{id}/bundle``, the
console's transparency page and bundle check).

Every read first brings the transparency read model up to the end of the log (a bundle: every
read model), so what was committed before the request is in the tree it is proved against.
With a witness configured, the checkpoint served carries the witness's cosignature line once
the witness has cosigned that very checkpoint (``processes/witness_submitter.py``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol

from anyio.to_thread import run_sync

from ledger.audit.bundle.verify import Checklist, verify_bundle
from ledger.audit.older_checkpoint import check_older_checkpoint
from ledger.errors import InvalidInput, NotFound
from ledger.runtime import LedgerRuntime
from projections import transparency_queries as tq
from projections.bundle import build_bundle
from projections.service import ReadSide


class WitnessState(Protocol):
    """What the witness last said of the log."""

    @property
    def state(self) -> str:
        """``pending``, ``cosigned``, ``unavailable`` or ``refused``."""
        ...


class Cosigner(Protocol):
    """The witness submitter as the desk uses it (``processes/witness_submitter.py``)."""

    @property
    def status(self) -> WitnessState:
        """The witness's last answer."""
        ...

    def run_once(self) -> None:
        """Submit the newest checkpoint, when the witness has not cosigned it yet."""

    def cosignature_for(self, size: int, root: bytes) -> str | None:
        """The verified cosignature line of the checkpoint of ``size`` and ``root``, if any."""


@dataclass(frozen=True)
class SignedCheckpoint:
    """A checkpoint as served: its signed note, with the witness's cosignature line appended
    when the witness cosigned this checkpoint."""

    origin: str
    """The log's origin line, which names the log's own signature in the note."""
    size: int
    note: str
    root: bytes
    created_at: str
    cosigned: bool
    """Whether the note carries the witness's cosignature line."""
    witness: str | None
    """The witness's state (``WitnessState.state``); None when no witness is configured."""

    @property
    def witness_standing(self) -> str | None:
        """The witness's standing for this checkpoint: ``cosigned`` (its line is appended),
        ``none`` (the witness cosigned a newer checkpoint, not this older one) or the
        witness's state; None when no witness is configured."""
        if self.witness is None:
            return None
        if self.cosigned:
            return "cosigned"
        return "none" if self.witness == "cosigned" else self.witness


@dataclass(frozen=True)
class OlderCheckpointCheck:
    """A pasted checkpoint checked against the latest: each check that held (the failed one
    last) and the failure's reason code (None when every check held)."""

    latest: SignedCheckpoint
    items: list[tuple[bool, str]]
    reason: str | None


class AuditReadDesk:
    """Serves the transparency log and the bundles proved against it."""

    def __init__(
        self, read_side: ReadSide, runtime: LedgerRuntime, witness: Cosigner | None
    ) -> None:
        self.read_side = read_side
        self.runtime = runtime
        self.witness = witness

    async def checkpoint(self, at: str | None) -> SignedCheckpoint:
        """The latest signed checkpoint, or the latest created at or before ``at``; the
        witness (when configured) is offered the newest one first."""
        await run_sync(self.read_side.transparency.catch_up)
        if self.witness is not None:
            await run_sync(self.witness.run_once)
        async with self.read_side.async_engine.connect() as conn:
            row = await tq.latest_checkpoint(conn, at)
        return self._signed(row)

    def newest_checkpoint(self) -> SignedCheckpoint:
        """The newest checkpoint (NotFound before the first)."""
        self.read_side.transparency.catch_up()
        with self.read_side.db.reads.connect() as conn:
            row = tq.newest_checkpoint(conn)
        if row is None:
            raise NotFound("the transparency log has no checkpoint yet")
        return self._signed(row)

    def _signed(self, row: dict[str, Any]) -> SignedCheckpoint:
        size, root, note = int(row["size"]), bytes(row["root"]), str(row["note"])
        line, state = None, None
        if self.witness is not None:
            line = self.witness.cosignature_for(size, root)
            state = self.witness.status.state
        return SignedCheckpoint(
            self.read_side.origin,
            size,
            note + (line or ""),
            root,
            str(row["created_at"]),
            bool(line),
            state,
        )

    def check_older_checkpoint(self, pasted: str) -> OlderCheckpointCheck:
        """Check a pasted checkpoint note against the newest with the log's consistency proof
        (``ledger/audit/older_checkpoint.py``), under the published keys."""
        keyring = self.runtime.keystore.load_keyring()  # what GET /v1/keys publishes
        latest = self.newest_checkpoint()
        items, reason = check_older_checkpoint(
            pasted, latest.note, self.read_side.origin, keyring, self._consistency
        )
        return OlderCheckpointCheck(latest, items, reason)

    def inclusion(
        self, size: int, index: int | None, notification_id: int | None
    ) -> dict[str, Any]:
        """The inclusion proof of one leaf, named by its index or by its event's notification
        id (exactly one of them), in the tree of ``size`` leaves."""
        if (index is None) == (notification_id is None):
            raise InvalidInput("index", "one-of", "give exactly one of index and notification_id")
        self.read_side.transparency.catch_up()
        with self.read_side.db.reads.connect() as conn:
            if index is None:
                assert notification_id is not None
                index = tq.leaf_index_of(conn, notification_id)
            return tq.inclusion(conn, index, size)

    def consistency(self, first: int, second: int) -> dict[str, Any]:
        """The proof that the tree of ``second`` leaves extends the tree of ``first``."""
        self.read_side.transparency.catch_up()
        return self._consistency(first, second)

    def _consistency(self, first: int, second: int) -> dict[str, Any]:
        with self.read_side.db.reads.connect() as conn:
            return tq.consistency(conn, first, second)

    def bundle(self, claim_id: str, since_size: int | None = None) -> dict[str, Any]:
        """The claim's citation-chain bundle against the latest checkpoint, with a consistency
        proof from ``since_size`` when given (``projections/bundle.py``)."""
        return build_bundle(claim_id, self.read_side, self.runtime, since_size)

    def checked_bundle(self, claim_id: str) -> tuple[dict[str, Any], Checklist]:
        """The claim's bundle and ``provledger audit verify``'s checks of it (the same
        function) against the published keys and the bundle's checkpoint."""
        bundle = self.bundle(claim_id)
        keyring = self.runtime.keystore.load_keyring()  # what GET /v1/keys publishes
        # checked as the downloaded file is: through JSON, not as the objects built here
        return bundle, verify_bundle(json.loads(json.dumps(bundle)), keyring)
