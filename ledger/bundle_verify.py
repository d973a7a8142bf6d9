"""Offline verification of a citation-chain bundle: no server, no database.

A bundle (``GET /v1/claims/{claim_id}/bundle``, format in ``docs/audit.md``) carries a claim,
its bound spans, their source versions' frozen text, the receipt's DSSE envelope, every event
on the chain in stored form, inclusion proofs of those events to a signed checkpoint, and the
checkpoint. :func:`verify_bundle` checks all of it with the trusted public keys alone and
returns a checklist: each item says what was checked and whether it held.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from ledger.checkpoint import Checkpoint, verify_note
from ledger.envelope import MalformedEvent, format_hash, open_state
from ledger.envelope_verification import verify_receipt_envelope
from ledger.errors import LedgerError
from ledger.merkle import leaf_hash, verify_consistency, verify_inclusion
from ledger.signing import Keyring
from ledger.text.spans import span_id_for

BUNDLE_FORMAT = "provledger.bundle/v1"


@dataclass
class Checklist:
    """Every check made, in order, with its verdict."""

    items: list[tuple[bool, str]] = field(default_factory=list)

    def add(self, ok: bool, text: str) -> bool:
        """Record one check; returns ``ok``."""
        self.items.append((ok, text))
        return ok

    @property
    def ok(self) -> bool:
        """True when at least one check ran and none failed."""
        return bool(self.items) and all(ok for ok, _ in self.items)


def _b64(text: str) -> bytes:
    return base64.b64decode(text, validate=True)


def verify_bundle(
    bundle: Any, keyring: Keyring, previous_checkpoint: str | None = None
) -> Checklist:
    """Check a bundle against ``keyring`` (and, optionally, an earlier checkpoint)."""
    checks = Checklist()
    if not isinstance(bundle, dict) or bundle.get("format") != BUNDLE_FORMAT:
        checks.add(False, f"bundle format is not {BUNDLE_FORMAT}")
        return checks
    try:
        checkpoint = _checkpoint(bundle, keyring, checks)
        _sources_and_spans(bundle, checks)
        _events(bundle, keyring, checks, checkpoint)
        _envelope(bundle, keyring, checks)
        if previous_checkpoint is not None:
            _consistency(bundle, keyring, previous_checkpoint, checkpoint, checks)
    except (KeyError, TypeError, ValueError, binascii.Error, LedgerError) as exc:
        checks.add(False, f"bundle is malformed or fails: {exc}")
    return checks


def _checkpoint(bundle: dict[str, Any], keyring: Keyring, checks: Checklist) -> Checkpoint | None:
    note = bundle["checkpoint"]
    origin = bundle["origin"]
    for record in keyring.records.values():
        try:
            checkpoint = verify_note(note, origin, record.public_key, origin=origin)
        except LedgerError:
            continue
        checks.add(
            True,
            f"checkpoint signed by {origin} (key {record.kid}): size {checkpoint.size}, "
            f"root {checkpoint.root.hex()[:16]}...",
        )
        return checkpoint
    checks.add(False, "checkpoint signature does not verify with any trusted key")
    return None


def _sources_and_spans(bundle: dict[str, Any], checks: Checklist) -> None:
    texts: dict[tuple[str, int], str] = {}
    for source in bundle["sources"]:
        text = source["frozen_text"]
        digest = "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
        key = (source["source_id"], source["version"])
        checks.add(
            digest == source["version_hash"],
            f"{key[0]} v{key[1]}: frozen text hashes to its version hash"
            + ("" if digest == source["version_hash"] else f" (got {digest})"),
        )
        texts[key] = text
    for span in bundle["spans"]:
        key = (span["source_id"], span["version"])
        text = texts.get(key)
        if text is None:
            checks.add(False, f"span {span['span_id']}: no frozen text for {key[0]} v{key[1]}")
            continue
        cut = text[span["start"] : span["end"]]
        checks.add(
            cut == span["text"],
            f"span {span['span_id']}: text equals frozen_text[{span['start']}:{span['end']}]",
        )
        version_hash = next(
            s["version_hash"] for s in bundle["sources"] if (s["source_id"], s["version"]) == key
        )
        derived = span_id_for(key[0], version_hash, span["start"], span["end"])
        checks.add(
            derived == span["span_id"], f"span {span['span_id']}: id derives from its offsets"
        )


def _events(
    bundle: dict[str, Any],
    keyring: Keyring,
    checks: Checklist,
    checkpoint: Checkpoint | None,
) -> None:
    heads: dict[str, tuple[int, bytes]] = {}
    proofs = {proof["leaf_index"]: proof for proof in bundle["proofs"]}
    signatures_ok = chain_ok = proofs_ok = True
    for event in bundle["events"]:
        state = json.dumps(event["stored"], ensure_ascii=False, sort_keys=True).encode()
        try:
            sealed = open_state(state)
        except MalformedEvent as exc:
            checks.add(False, f"event {event['notification_id']}: {exc}")
            return
        stored_bytes = sealed.to_state()
        if sealed.kid not in keyring or not keyring.verify(
            sealed.kid, sealed.body_bytes, sealed.signature
        ):
            signatures_ok = checks.add(
                False, f"event {event['notification_id']}: signature does not verify"
            )
        aggregate = sealed.body["originator_id"]
        version = sealed.body["originator_version"]
        head = heads.get(aggregate)
        expected_prev = None if head is None else head[1]
        if head is not None and version != head[0] + 1:
            chain_ok = checks.add(False, f"event {event['notification_id']}: version gap")
        if sealed.prev_hash != expected_prev:
            chain_ok = checks.add(
                False,
                f"event {event['notification_id']}: prev is {sealed.body['prev']}, expected "
                f"{'null' if expected_prev is None else format_hash(expected_prev)}",
            )
        heads[aggregate] = (version, sealed.event_hash)
        proof = proofs.get(event["leaf_index"])
        if checkpoint is None or proof is None:
            proofs_ok = checks.add(
                False, f"event {event['notification_id']}: no inclusion proof to a checkpoint"
            )
            continue
        try:
            verify_inclusion(
                leaf_hash(stored_bytes),
                event["leaf_index"],
                checkpoint.size,
                [_b64(h) for h in proof["proof"]],
                checkpoint.root,
            )
        except LedgerError as exc:
            proofs_ok = checks.add(False, f"event {event['notification_id']}: {exc}")
    count = len(bundle["events"])
    if signatures_ok:
        checks.add(True, f"{count} event signatures verify with trusted keys")
    if chain_ok:
        checks.add(True, f"{count} events chain to their predecessors")
    if proofs_ok and checkpoint is not None:
        checks.add(True, f"{count} inclusion proofs verify against the checkpoint root")


def _envelope(bundle: dict[str, Any], keyring: Keyring, checks: Checklist) -> None:
    result = verify_receipt_envelope(bundle["envelope"], None, keyring)
    checks.add(
        bool(result["valid"]),
        "receipt envelope verifies (Ed25519, canonical payload, content id)"
        + ("" if result["valid"] else f": {'; '.join(result['reasons'])}"),
    )
    payload = json.loads(_b64(bundle["envelope"]["payload"]))
    claim = bundle["claim"]
    listed = next(
        (
            c
            for c in payload["claims"] + payload["quarantined"]
            if c["claim_id"] == claim["claim_id"]
        ),
        None,
    )
    checks.add(listed == claim, f"claim {claim['claim_id']} is the one the envelope records")


def _consistency(
    bundle: dict[str, Any],
    keyring: Keyring,
    previous: str,
    checkpoint: Checkpoint | None,
    checks: Checklist,
) -> None:
    earlier = None
    for record in keyring.records.values():
        try:
            earlier = verify_note(
                previous, bundle["origin"], record.public_key, origin=bundle["origin"]
            )
            break
        except LedgerError:
            continue
    if earlier is None or checkpoint is None:
        checks.add(False, "previous checkpoint does not verify with any trusted key")
        return
    if earlier.size == checkpoint.size and earlier.root != checkpoint.root:
        checks.add(
            False,
            f"fork: two checkpoints of size {earlier.size} with different roots "
            f"({earlier.root.hex()[:16]}... and {checkpoint.root.hex()[:16]}...)",
        )
        return
    proof = bundle.get("consistency")
    if not proof or proof.get("first") != earlier.size or proof.get("second") != checkpoint.size:
        checks.add(
            False,
            f"bundle has no consistency proof from size {earlier.size} to {checkpoint.size} "
            "(request the bundle with ?since_size=" + str(earlier.size) + ")",
        )
        return
    verify_consistency(
        earlier.size,
        checkpoint.size,
        [_b64(h) for h in proof["proof"]],
        earlier.root,
        checkpoint.root,
    )
    checks.add(
        True, f"log grew append-only from size {earlier.size} to {checkpoint.size} (consistent)"
    )
