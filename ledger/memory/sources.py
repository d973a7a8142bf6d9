"""What a memory item came from: spans and claims of the ledger, each checked to exist.

A ``source`` id is a span id (``sp_`` + 24 hex digits) or a claim id (``clm_`` + 24 hex
digits). A span must exist in a version in force now, its source not withdrawn; a claim must
be committed. Each must be one the caller may see: to a key with pins, a span of a source it
may not see, or a claim of a receipt it may not read, does not exist (the same error as an
unknown id). What the item records of each, so that who may use it can be decided later
without reading the receipt or the span again:

- a span: ``{kind: "span", span_id, source_id, version, version_hash, text_sha256}``;
- a claim: ``{kind: "claim", claim_id, receipt_id, status, spans: [{span_id, source_id,
  version}]}`` (the spans its bindings name).

Claims are found through the :class:`ClaimSource` port (the receipts room implements it), so
this room imports nothing above it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ledger.access.attributes import Pins, Principal, SourceAccess
from ledger.access.policy import AccessPolicy, pins_may_see
from ledger.registry.evidence import SpanResolver, pick_version

SPAN_ID = re.compile(r"^sp_[0-9a-f]{24}$")
CLAIM_ID = re.compile(r"^clm_[0-9a-f]{24}$")
MAX_SOURCES = 100


@dataclass(frozen=True)
class ClaimFacts:
    """A claim as its receipt's verified events hold it."""

    claim_id: str
    receipt_id: str
    committed: bool
    status: str
    principal: Principal
    """The principal the claim's receipt was opened for (who may read it)."""
    spans: tuple[dict[str, Any], ...]
    """``{span_id, source_id, version}`` of each binding."""


class ClaimSource(Protocol):
    """Finds a claim by id, from verified receipt events."""

    def claim(self, claim_id: str) -> ClaimFacts | None:
        """The claim, or None when the ledger holds none by that id."""


@dataclass(frozen=True)
class SourceChecks:
    """What checking a memory item's sources needs: the span resolver, the claim port, the
    access policy in force and a source's verified access attributes."""

    spans: SpanResolver
    claims: ClaimSource
    policy: Callable[[], AccessPolicy]
    source_access: Callable[[str], SourceAccess | None]

    def resolve(
        self, ids: Sequence[str], pins: Pins | None, now: str, errors: list[dict[str, str]]
    ) -> list[dict[str, Any]]:
        """The records of ``ids`` (``source[i]``), each refusal appended to ``errors``."""
        if not 1 <= len(ids) <= MAX_SOURCES:
            errors.append(
                {
                    "field": "source",
                    "rule": "count",
                    "message": f"source lists 1 to {MAX_SOURCES} span or claim ids",
                }
            )
            return []
        if len(set(ids)) != len(ids):
            errors.append(
                {"field": "source", "rule": "unique", "message": "source names an id twice"}
            )
        policy = self.policy()
        span_ids = [i for i in ids if SPAN_ID.match(i)]
        resolved = self.spans.resolve(span_ids) if span_ids else {}
        records: list[dict[str, Any]] = []
        for index, source_id in enumerate(ids):
            field = f"source[{index}]"
            if SPAN_ID.match(source_id):
                record = self._span(source_id, resolved.get(source_id, ()), pins, policy, now)
            elif CLAIM_ID.match(source_id):
                record = self._claim(source_id, pins, policy)
            else:
                errors.append(
                    {
                        "field": field,
                        "rule": "pattern",
                        "message": "a source is a span id (sp_ + 24 hex digits) or a claim id "
                        "(clm_ + 24 hex digits)",
                    }
                )
                continue
            if isinstance(record, tuple):
                errors.append({"field": field, "rule": record[0], "message": record[1]})
            else:
                records.append(record)
        return records

    def _span(
        self,
        span_id: str,
        candidates: Sequence[Any],
        pins: Pins | None,
        policy: AccessPolicy,
        now: str,
    ) -> dict[str, Any] | tuple[str, str]:
        if not candidates or not pins_may_see(pins, candidates[0].access, policy):
            return ("exists", f"span {span_id} does not exist")
        span = pick_version(candidates, now)
        if span.withdrawn_at is not None:
            return ("citable", f"span {span_id}: source {span.source_id} is withdrawn")
        if not span.in_force_at(now):
            return (
                "citable",
                f"span {span_id}: version {span.version} of {span.source_id} is not in force "
                "now; memory is kept from current evidence",
            )
        return {
            "kind": "span",
            "span_id": span.span_id,
            "source_id": span.source_id,
            "version": span.version,
            "version_hash": span.version_hash,
            "text_sha256": span.text_sha256,
        }

    def _claim(
        self, claim_id: str, pins: Pins | None, policy: AccessPolicy
    ) -> dict[str, Any] | tuple[str, str]:
        claim = self.claims.claim(claim_id)
        missing = ("exists", f"claim {claim_id} does not exist")
        if claim is None or (pins is not None and pins.excess(claim.principal)):
            return missing
        for span in claim.spans:
            access = self.source_access(span["source_id"])
            if access is None or not pins_may_see(pins, access, policy):
                return missing
        if not claim.committed:
            return ("committed", f"claim {claim_id} was rejected by the gate, never committed")
        return {
            "kind": "claim",
            "claim_id": claim.claim_id,
            "receipt_id": claim.receipt_id,
            "status": claim.status,
            "spans": [dict(span) for span in claim.spans],
        }
