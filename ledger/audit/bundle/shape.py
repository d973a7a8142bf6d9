"""The shape of a citation-chain bundle (``provledger.bundle/v1``, docs/audit.md), read into
frozen records before anything is checked.

Every field the verifier relies on is type-checked here, so a check never trips over a
missing key or a string where a number belongs; a violation is ``bundle-malformed`` and names
the field (``bundle.spans[0].start``) and the rule. Nothing here is trusted yet: these are
only well-typed claims that the checks then test.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any

from ledger.audit.bundle.reasons import BundleReason
from ledger.errors import BundleVerificationError

BUNDLE_FORMAT = "provledger.bundle/v1"


@dataclass(frozen=True)
class BundleSpan:
    """A bound span as the bundle states it."""

    span_id: str
    source_id: str
    version: int
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class BundleSource:
    """A source version's frozen text as the bundle states it."""

    source_id: str
    version: int
    version_hash: str
    frozen_text: str


@dataclass(frozen=True)
class BundleEvent:
    """A stored event with the bundle's labels for it (the labels are checked against the
    signed body; ``leaf_index`` is checked by the inclusion proof)."""

    notification_id: int
    leaf_index: int
    originator_id: str
    originator_version: int
    topic: str
    stored: dict[str, Any]


@dataclass(frozen=True)
class ConsistencyProof:
    """RFC 9162 PROOF(first, D[second]), hashes decoded."""

    first: int
    second: int
    proof: tuple[bytes, ...]


@dataclass(frozen=True)
class Bundle:
    """A bundle whose every field has the type the format says."""

    origin: str
    claim: dict[str, Any]
    bindings: tuple[dict[str, Any], ...]
    receipt_id: str
    spans: tuple[BundleSpan, ...]
    sources: tuple[BundleSource, ...]
    envelope: dict[str, Any]
    events: tuple[BundleEvent, ...]
    proofs: dict[int, tuple[bytes, ...]]
    checkpoint: str
    checkpoint_size: int
    consistency: ConsistencyProof | None


def _fail(where: str, rule: str) -> BundleVerificationError:
    return BundleVerificationError(BundleReason.BUNDLE_MALFORMED, f"{where} {rule}")


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(where, f"must be an object, got {type(value).__name__}")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise _fail(where, f"must be a list, got {type(value).__name__}")
    return value


def _str(data: dict[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise _fail(f"{where}.{key}", f"must be a string, got {type(value).__name__}")
    return value


def _int(data: dict[str, Any], key: str, where: str) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _fail(f"{where}.{key}", f"must be an integer >= 0, got {value!r}")
    return value


def _hashes(value: Any, where: str) -> tuple[bytes, ...]:
    items = _list(value, where)
    decoded = []
    for index, item in enumerate(items):
        try:
            if not isinstance(item, str):
                raise TypeError
            decoded.append(base64.b64decode(item, validate=True))
        except (TypeError, binascii.Error, ValueError):
            raise _fail(f"{where}[{index}]", "must be a base64 hash") from None
    return tuple(decoded)


def _binding(value: Any, where: str) -> dict[str, Any]:
    binding = _object(value, where)
    _str(binding, "span_id", where)
    if binding.get("source_id") is not None:  # bound to a resolved span of a source version
        _str(binding, "source_id", where)
        _int(binding, "version", where)
        _str(binding, "version_hash", where)
    return binding


# Over 60 lines on purpose: it reads the bundle format field by field, in the order the format
# documents them, so a reader can hold the two side by side.
def parse_bundle(document: Any) -> Bundle:
    """Check the bundle's shape and read it; raise ``bundle-format-unknown`` or
    ``bundle-malformed``."""
    if not isinstance(document, dict):
        raise _fail("bundle", f"must be a JSON object, got {type(document).__name__}")
    if document.get("format") != BUNDLE_FORMAT:
        raise BundleVerificationError(
            BundleReason.BUNDLE_FORMAT_UNKNOWN,
            f"bundle format is {document.get('format')!r}, expected {BUNDLE_FORMAT!r}",
        )
    claim = _object(document.get("claim"), "bundle.claim")
    _str(claim, "claim_id", "bundle.claim")
    _str(claim, "text", "bundle.claim")
    bindings = tuple(
        _binding(b, f"bundle.claim.bindings[{i}]")
        for i, b in enumerate(_list(claim.get("bindings"), "bundle.claim.bindings"))
    )
    spans = []
    for index, item in enumerate(_list(document.get("spans"), "bundle.spans")):
        where = f"bundle.spans[{index}]"
        span = _object(item, where)
        spans.append(
            BundleSpan(
                _str(span, "span_id", where),
                _str(span, "source_id", where),
                _int(span, "version", where),
                _int(span, "start", where),
                _int(span, "end", where),
                _str(span, "text", where),
            )
        )
    sources = []
    for index, item in enumerate(_list(document.get("sources"), "bundle.sources")):
        where = f"bundle.sources[{index}]"
        source = _object(item, where)
        sources.append(
            BundleSource(
                _str(source, "source_id", where),
                _int(source, "version", where),
                _str(source, "version_hash", where),
                _str(source, "frozen_text", where),
            )
        )
    events = []
    for index, item in enumerate(_list(document.get("events"), "bundle.events")):
        where = f"bundle.events[{index}]"
        entry = _object(item, where)
        events.append(
            BundleEvent(
                _int(entry, "notification_id", where),
                _int(entry, "leaf_index", where),
                _str(entry, "originator_id", where),
                _int(entry, "originator_version", where),
                _str(entry, "topic", where),
                _object(entry.get("stored"), f"{where}.stored"),
            )
        )
    proofs: dict[int, tuple[bytes, ...]] = {}
    for index, item in enumerate(_list(document.get("proofs"), "bundle.proofs")):
        where = f"bundle.proofs[{index}]"
        proof = _object(item, where)
        leaf = _int(proof, "leaf_index", where)
        if leaf in proofs:
            raise _fail(f"{where}.leaf_index", f"repeats leaf {leaf}: one proof per leaf")
        proofs[leaf] = _hashes(proof.get("proof"), f"{where}.proof")
    consistency = None
    if document.get("consistency") is not None:
        where = "bundle.consistency"
        raw = _object(document["consistency"], where)
        consistency = ConsistencyProof(
            _int(raw, "first", where),
            _int(raw, "second", where),
            _hashes(raw.get("proof"), f"{where}.proof"),
        )
    return Bundle(
        origin=_str(document, "origin", "bundle"),
        claim=claim,
        bindings=bindings,
        receipt_id=_str(document, "receipt_id", "bundle"),
        spans=tuple(spans),
        sources=tuple(sources),
        envelope=_object(document.get("envelope"), "bundle.envelope"),
        events=tuple(events),
        proofs=proofs,
        checkpoint=_str(document, "checkpoint", "bundle"),
        checkpoint_size=_int(document, "checkpoint_size", "bundle"),
        consistency=consistency,
    )
