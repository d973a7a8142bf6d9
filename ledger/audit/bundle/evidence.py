"""Bundle checks of the claim and its evidence against the verified events: the receipt
replayed from its signed events records the claim as stated; every binding names a span the
bundle carries, of a source version whose frozen text hashes to the version hash a signed
``version added`` event records, at offsets that event lists; the receipt envelope seals the
receipt the events replay to. Part of :mod:`ledger.audit.bundle.verify`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Sequence
from itertools import zip_longest
from typing import Any

from ledger.audit.bundle.log import EventChains
from ledger.audit.bundle.reasons import BundleReason
from ledger.audit.bundle.shape import Bundle
from ledger.audit.envelope_verification import verify_receipt_envelope
from ledger.audit.receipt_replay import replay_receipt
from ledger.crypto.canonical import canonical_json
from ledger.crypto.signing import Keyring
from ledger.errors import BundleVerificationError, ReceiptReplayError
from ledger.receipts.document import receipt_document
from ledger.receipts.receipt import Receipt
from ledger.receipts.receipt_ids import receipt_aggregate_id
from ledger.registry.source import Source, source_aggregate_id
from ledger.text.spans import span_id_for

R = BundleReason
VERSION_ADDED = Source.VersionAdded.TOPIC


def _fail(reason: BundleReason, detail: str) -> BundleVerificationError:
    return BundleVerificationError(reason, detail)


def replay(bundle: Bundle, chains: EventChains) -> Receipt:
    """The receipt as its verified events in the bundle build it."""
    receipt_id = bundle.receipt_id
    bodies = chains.bodies(str(receipt_aggregate_id(receipt_id)))
    if not bodies:
        raise _fail(
            R.RECEIPT_EVENTS_MISSING, f"the bundle carries no events of receipt {receipt_id}"
        )
    try:
        receipt = replay_receipt(bodies)
    except ReceiptReplayError as exc:
        raise _fail(R.RECEIPT_EVENTS_INVALID, f"receipt {receipt_id} {exc}") from None
    if receipt.receipt_id != receipt_id:
        raise _fail(
            R.RECEIPT_EVENTS_INVALID,
            f"receipt {receipt_id}: its signed opening names {receipt.receipt_id}",
        )
    return receipt


_ABSENT = object()


def _same(stated: Any, recorded: Any) -> bool:
    """Equal as JSON (RFC 8785 bytes): ``true`` is not ``1``, an absent key is not ``null``."""
    if stated is _ABSENT or recorded is _ABSENT:
        return stated is recorded
    return canonical_json(stated) == canonical_json(recorded)


def _differing(stated: dict[str, Any], recorded: dict[str, Any], skip: str = "") -> list[str]:
    keys = {*stated, *recorded} - {skip}
    return sorted(k for k in keys if not _same(stated.get(k, _ABSENT), recorded.get(k, _ABSENT)))


def _in_commit_order(document: dict[str, Any]) -> dict[str, Any]:
    """The envelope's receipt with its claims in commit order (by ordinal), as the replay
    lists them. Envelopes sealed before that order listed a claim a repair committed after
    the claims committed before the repair; every claim still has to match its record, and an
    ordinal missing or repeated leaves the list as it is, to differ."""
    ordered = dict(document)
    for name in ("claims", "quarantined"):
        claims = document.get(name)
        if not isinstance(claims, list) or not all(isinstance(c, dict) for c in claims):
            continue
        ordinals = [c.get("ordinal") for c in claims]
        if all(type(o) is int for o in ordinals) and len(set(ordinals)) == len(ordinals):
            ordered[name] = sorted(claims, key=lambda claim: int(claim["ordinal"]))
    return ordered


def _binding_text(binding: dict[str, Any] | None) -> str:
    if binding is None:
        return "absent"
    return (
        f"{binding.get('span_id')} ({binding.get('source_id')} v{binding.get('version')}, "
        f"{binding.get('version_hash')}, role {binding.get('role')})"
    )


def check_claim(bundle: Bundle, receipt: Receipt) -> dict[str, Any]:
    """The bundle's claim equals the claim the receipt's events record, field by field."""
    claim = bundle.claim
    claim_id = claim["claim_id"]
    recorded = next(
        (c for c in [*receipt.claims, *receipt.rejected] if c["claim_id"] == claim_id), None
    )
    if recorded is None:
        raise _fail(
            R.CLAIM_NOT_RECORDED,
            f"claim {claim_id} is not among the claims the receipt's events record",
        )
    if not _same(claim["text"], recorded["text"]):
        raise _fail(
            R.CLAIM_TEXT_MISMATCH,
            f"claim {claim_id}: text is {claim['text']!r}, the receipt's events record "
            f"{recorded['text']!r}",
        )
    pairs = zip_longest(claim["bindings"], recorded["bindings"])
    for index, (stated, signed) in enumerate(pairs):
        if stated is None or signed is None or not _same(stated, signed):
            raise _fail(
                R.CLAIM_BINDING_MISMATCH,
                f"claim {claim_id}: binding {index} is {_binding_text(stated)}, the receipt's "
                f"events record {_binding_text(signed)}",
            )
    differing = _differing(claim, recorded)
    if differing:
        raise _fail(
            R.CLAIM_RECORD_MISMATCH,
            f"claim {claim_id} differs from the receipt's events in: {', '.join(differing)}",
        )
    return recorded


# The evidence.


def _version_events(bundle: Bundle, chains: EventChains) -> dict[tuple[str, int], dict[str, Any]]:
    """The signed ``version added`` payloads, by (source id, version)."""
    found: dict[tuple[str, int], dict[str, Any]] = {}
    for source_id in {source.source_id for source in bundle.sources}:
        for body in chains.bodies(str(source_aggregate_id(source_id))):
            payload = body["payload"]
            if body["topic"] == VERSION_ADDED and isinstance(payload.get("version"), int):
                found[source_id, payload["version"]] = payload
    return found


def _recorded_offsets(payload: dict[str, Any]) -> set[tuple[int, int]]:
    rows = payload.get("spans")
    if not isinstance(rows, list):
        return set()
    return {(row[0], row[1]) for row in rows if isinstance(row, list) and len(row) >= 2}


# Over 60 lines on purpose: the evidence checks of docs/verification.md in their order, each
# raising its own reason code; one function keeps the order visible.
def check_evidence(bundle: Bundle, claim: dict[str, Any], chains: EventChains) -> None:
    """Bindings name carried spans; frozen texts hash to the version hashes signed version
    events record; spans are that text at offsets the version event lists, ids derived."""
    claim_id = claim["claim_id"]
    spans = {(s.span_id, s.source_id, s.version): s for s in bundle.spans}
    sources = {(s.source_id, s.version): s for s in bundle.sources}
    bound: Sequence[tuple[int, dict[str, Any]]] = [
        (index, b) for index, b in enumerate(claim["bindings"]) if b.get("source_id") is not None
    ]
    for index, binding in bound:
        span_id, source_id, version = binding["span_id"], binding["source_id"], binding["version"]
        if (span_id, source_id, version) not in spans:
            raise _fail(
                R.BINDING_SPAN_MISSING,
                f"binding {index} of claim {claim_id} names span {span_id} ({source_id} "
                f"v{version}), which the bundle does not carry",
            )
        if (source_id, version) not in sources:
            raise _fail(
                R.SOURCE_VERSION_MISSING,
                f"span {span_id}: the bundle carries no frozen text of {source_id} v{version}",
            )
    signed = _version_events(bundle, chains)
    for source in bundle.sources:
        name = f"{source.source_id} v{source.version}"
        digest = "sha256:" + hashlib.sha256(source.frozen_text.encode("utf-8")).hexdigest()
        if not hmac.compare_digest(digest.encode(), source.version_hash.encode()):
            raise _fail(
                R.SOURCE_TEXT_HASH_MISMATCH,
                f"{name}: frozen text hashes to {digest}, not to its version hash "
                f"{source.version_hash}",
            )
        payload = signed.get((source.source_id, source.version))
        if payload is None:
            raise _fail(
                R.VERSION_EVENT_MISSING,
                f"{name}: the bundle carries no signed version-added event for it",
            )
        if payload.get("version_hash") != source.version_hash:
            raise _fail(
                R.VERSION_HASH_UNSIGNED,
                f"{name}: version hash {source.version_hash} is not the one its signed "
                f"version-added event records ({payload.get('version_hash')})",
            )
    for index, binding in bound:
        source = sources[binding["source_id"], binding["version"]]
        if binding["version_hash"] != source.version_hash:
            raise _fail(
                R.BINDING_VERSION_MISMATCH,
                f"binding {index} of claim {claim_id} names version hash "
                f"{binding['version_hash']}, but {source.source_id} v{source.version} has "
                f"{source.version_hash}",
            )
    for span in bundle.spans:
        name = f"{span.source_id} v{span.version}"
        owner = sources.get((span.source_id, span.version))
        if owner is None:
            raise _fail(
                R.SOURCE_VERSION_MISSING,
                f"span {span.span_id}: the bundle carries no frozen text of {name}",
            )
        text = owner.frozen_text
        if (
            not (0 <= span.start < span.end <= len(text))
            or text[span.start : span.end] != span.text
        ):
            raise _fail(
                R.SPAN_TEXT_MISMATCH,
                f"span {span.span_id}: text is not {name}'s frozen text at "
                f"[{span.start}:{span.end}]",
            )
        derived = span_id_for(span.source_id, owner.version_hash, span.start, span.end)
        if derived != span.span_id:
            raise _fail(
                R.SPAN_ID_MISMATCH,
                f"span {span.span_id}: the id of {name} [{span.start}:{span.end}] is {derived}",
            )
        if (span.start, span.end) not in _recorded_offsets(signed[span.source_id, span.version]):
            raise _fail(
                R.SPAN_NOT_IN_VERSION,
                f"span {span.span_id}: [{span.start}:{span.end}] is not a span {name}'s "
                "version-added event records",
            )


# The envelope.


def check_envelope(bundle: Bundle, keyring: Keyring, receipt: Receipt) -> None:
    """The DSSE envelope verifies with a trusted key and seals the replayed receipt (all but
    its clock-dependent status; its recorded expiries included)."""
    result = verify_receipt_envelope(bundle.envelope, None, keyring)
    if not result["valid"]:
        problems = "; ".join(result["reasons"])
        raise _fail(R.ENVELOPE_INVALID, f"receipt envelope does not verify: {problems}")
    document = json.loads(base64.b64decode(bundle.envelope["payload"]))
    if document.get("receipt_id") != bundle.receipt_id:
        raise _fail(
            R.ENVELOPE_RECEIPT_MISMATCH,
            f"the envelope is receipt {document.get('receipt_id')}'s, not {bundle.receipt_id}'s",
        )
    replayed = receipt_document(receipt)
    # ``status`` is computed at sealing time from the clock; only its recorded expiries are
    # the receipt's own state.
    differing = _differing(_in_commit_order(document), replayed, skip="status")
    status = document.get("status")
    expiries = status.get("expiries", _ABSENT) if isinstance(status, dict) else _ABSENT
    if not _same(expiries, replayed["status"]["expiries"]):
        differing.append("status.expiries")
    if differing:
        raise _fail(
            R.RECEIPT_STATE_MISMATCH,
            "the envelope's receipt differs from the one its events in the bundle replay to, "
            f"in: {', '.join(differing)}",
        )
