"""Bundle checks against the log: the checkpoint is signed by a trusted key (C2SP
tlog-checkpoint, C2SP signed-note), grew append-only from the auditor's earlier one (RFC 9162
section 2.1.4), and every event in the bundle is well formed, chained, signed by a trusted
key and included in it (RFC 9162 section 2.1.3). Part of :mod:`ledger.audit.bundle.verify`.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ledger.audit.bundle.reasons import BundleReason
from ledger.audit.bundle.shape import Bundle, BundleEvent
from ledger.audit.log_verify import FailureReason, LogVerifier
from ledger.crypto.canonical import canonical_json
from ledger.crypto.checkpoint import Checkpoint, key_hash, parse_note, verify_note
from ledger.crypto.merkle import leaf_hash, verify_consistency, verify_inclusion
from ledger.crypto.signing import Keyring
from ledger.errors import (
    BundleVerificationError,
    CheckpointError,
    EventCheckFailed,
    LedgerError,
    MalformedEvent,
    MerkleVerificationError,
)
from ledger.eventlog.envelope import SealedEvent, open_state
from ledger.receipts.receipt_ids import receipt_aggregate_id
from ledger.registry.source import source_aggregate_id

R = BundleReason
_EVENT_REASONS = {
    FailureReason.MALFORMED_EVENT: R.EVENT_MALFORMED,
    FailureReason.ROW_MISMATCH: R.EVENT_ENTRY_MISMATCH,
    FailureReason.MISSING_EVENT: R.EVENT_SEQUENCE_GAP,
    FailureReason.BROKEN_CHAIN: R.EVENT_CHAIN_BROKEN,
    FailureReason.UNKNOWN_KEY: R.EVENT_KEY_UNKNOWN,
    FailureReason.BAD_SIGNATURE: R.EVENT_SIGNATURE_INVALID,
}


def _fail(reason: BundleReason, detail: str) -> BundleVerificationError:
    return BundleVerificationError(reason, detail)


def trusted_checkpoint(
    note: str,
    origin: str,
    keyring: Keyring,
    what: str,
    reasons: tuple[BundleReason, BundleReason, BundleReason, BundleReason],
) -> Checkpoint:
    """The checkpoint in ``note`` if every signature line by a trusted key verifies
    (C2SP signed-note: lines by other keys are ignored, so at least one must be trusted)."""
    malformed, wrong_origin, untrusted, invalid = reasons
    try:
        checkpoint, signatures = parse_note(note)
    except CheckpointError as exc:
        raise _fail(malformed, f"{what}: {exc}") from None
    if checkpoint.origin != origin:
        raise _fail(wrong_origin, f"{what} origin is {checkpoint.origin!r}, expected {origin!r}")
    trusted = []
    for record in keyring.records.values():
        expected = key_hash(origin, record.public_key)
        if any(s.key_name == origin and s.key_hash == expected for s in signatures):
            trusted.append(record)
    if not trusted:
        found = ", ".join(f"{s.key_name} ({s.key_hash.hex()})" for s in signatures)
        raise _fail(untrusted, f"{what} carries no signature by a trusted key; found: {found}")
    for record in trusted:
        try:
            verify_note(note, origin, record.public_key, origin=origin)
        except CheckpointError as exc:
            raise _fail(invalid, f"{what}: {exc}") from None
    return checkpoint


def check_consistency(
    bundle: Bundle, keyring: Keyring, origin: str, previous: str, checkpoint: Checkpoint
) -> None:
    """The bundle's consistency proof takes the auditor's ``previous`` checkpoint (signed by a
    trusted key) to ``checkpoint``: no rollback, no fork (RFC 9162 section 2.1.4.2)."""
    untrusted = R.PREVIOUS_CHECKPOINT_UNTRUSTED
    earlier = trusted_checkpoint(previous, origin, keyring, "previous checkpoint", (untrusted,) * 4)
    if earlier.size > checkpoint.size:
        raise _fail(
            R.CHECKPOINT_ROLLBACK,
            f"the bundle's checkpoint (size {checkpoint.size}) is older than the previous "
            f"checkpoint (size {earlier.size})",
        )
    if earlier.size == checkpoint.size and not hmac.compare_digest(earlier.root, checkpoint.root):
        raise _fail(
            R.CHECKPOINT_FORK,
            f"fork: two checkpoints of size {earlier.size} with different roots "
            f"({earlier.root.hex()[:16]}... and {checkpoint.root.hex()[:16]}...)",
        )
    proof = bundle.consistency
    if proof is None or (proof.first, proof.second) != (earlier.size, checkpoint.size):
        raise _fail(
            R.CONSISTENCY_PROOF_MISSING,
            f"no consistency proof from size {earlier.size} to {checkpoint.size} "
            f"(request the bundle with ?since_size={earlier.size})",
        )
    try:
        verify_consistency(
            earlier.size, checkpoint.size, proof.proof, earlier.root, checkpoint.root
        )
    except MerkleVerificationError as exc:
        raise _fail(
            R.CONSISTENCY_PROOF_INVALID,
            f"consistency from size {earlier.size} to {checkpoint.size}: {exc}",
        ) from None


# Events and their inclusion.


@dataclass(frozen=True)
class _Row:
    """A bundle event as :class:`ledger.audit.log_verify.LogVerifier` reads a stored row."""

    id: int
    originator_id: str
    originator_version: int
    topic: str
    state: bytes


@dataclass
class EventChains:
    """The verified events: each aggregate's in version order, and each leaf's data."""

    by_aggregate: dict[str, list[SealedEvent]] = field(default_factory=dict)
    states: dict[int, bytes] = field(default_factory=dict)

    def bodies(self, aggregate: str) -> list[dict[str, Any]]:
        """The signed bodies of one aggregate's events, in version order."""
        return [sealed.body for sealed in self.by_aggregate.get(aggregate, [])]


def labeller(bundle: Bundle) -> Callable[[BundleEvent], str]:
    """Names an event for messages: its leaf and its aggregate (receipt or source id)."""
    names = {str(receipt_aggregate_id(bundle.receipt_id)): f"receipt {bundle.receipt_id}"}
    for source in bundle.sources:
        names[str(source_aggregate_id(source.source_id))] = f"source {source.source_id}"
    for binding in bundle.bindings:
        if binding.get("source_id") is not None:
            source_id = binding["source_id"]
            names[str(source_aggregate_id(source_id))] = f"source {source_id}"

    def label(entry: BundleEvent) -> str:
        name = names.get(entry.originator_id, entry.originator_id)
        return f"event at leaf {entry.leaf_index} ({name} v{entry.originator_version})"

    return label


def check_events(
    bundle: Bundle, keyring: Keyring, label: Callable[[BundleEvent], str]
) -> EventChains:
    """Each event in bundle order: well formed, labelled as signed, contiguous from version 1
    in its aggregate, linked by ``prev``, signed by a trusted key (docs/verification.md)."""
    verifier = LogVerifier(keyring)
    chains = EventChains()
    for entry in bundle.events:
        try:
            state = canonical_json(entry.stored)
            body = open_state(state).body
        except (MalformedEvent, LedgerError, TypeError, ValueError) as exc:
            raise _fail(R.EVENT_MALFORMED, f"{label(entry)}: {exc}") from None
        signed = (body["originator_id"], body["originator_version"], body["topic"])
        stated = (entry.originator_id, entry.originator_version, entry.topic)
        if signed != stated:
            raise _fail(
                R.EVENT_ENTRY_MISMATCH,
                f"{label(entry)}: signed body names {signed[0]} v{signed[1]} ({signed[2]}) "
                f"but the entry says {stated[0]} v{stated[1]} ({stated[2]})",
            )
        row = _Row(entry.notification_id, *stated, state)
        try:
            sealed = verifier.check(row)
        except EventCheckFailed as failed:
            raise _fail(
                _EVENT_REASONS[FailureReason(failed.reason)], f"{label(entry)}: {failed.detail}"
            ) from None
        chains.by_aggregate.setdefault(entry.originator_id, []).append(sealed)
        chains.states[entry.leaf_index] = state
    return chains


def check_proofs(
    bundle: Bundle,
    states: dict[int, bytes],
    checkpoint: Checkpoint,
    label: Callable[[BundleEvent], str],
) -> None:
    """Every event is a leaf of the checkpoint's tree: RFC 9162 section 2.1.3.2."""
    for entry in bundle.events:
        proof = bundle.proofs.get(entry.leaf_index)
        if proof is None:
            raise _fail(
                R.PROOF_MISSING,
                f"{label(entry)}: the bundle has no inclusion proof for leaf {entry.leaf_index}",
            )
        try:
            verify_inclusion(
                leaf_hash(states[entry.leaf_index]),
                entry.leaf_index,
                checkpoint.size,
                proof,
                checkpoint.root,
            )
        except MerkleVerificationError as exc:
            raise _fail(R.PROOF_INVALID, f"{label(entry)}: {exc}") from None
