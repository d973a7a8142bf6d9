"""Opening a receipt: what its identity is bound to, and sealing its evidence pool.

The pool is sealed from spans resolved through the evidence port, each checked to exist, to be
citable at ``as_of`` and (through the entitlement gate) visible to the principal; a pool from a
recorded retrieval must be exactly the versions and texts the retrieval served.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from ledger.crypto.canonical import canonical_json
from ledger.errors import LedgerIntegrityError
from ledger.eventlog.clock import format_time, ledger_time
from ledger.receipts.claims import pool_entry
from ledger.receipts.entitlement import GateRecord
from ledger.receipts.validation import ReceiptRequest
from ledger.registry.evidence import ResolvedSpan, SpanResolver, pick_version


def request_fingerprint(payload: Any) -> str:
    """SHA-256 of the RFC 8785 form of a request body (what an idempotency key is bound to)."""
    return "sha256:" + hashlib.sha256(canonical_json(payload)).hexdigest()


def opening_fingerprint(request: ReceiptRequest) -> str:
    """What an ``inference_id`` or an ``Idempotency-Key`` of an opening is bound to: SHA-256 of
    the RFC 8785 form of the request as sent (times in ledger form; an absent ``as_of`` stays
    absent, so a retry an hour later is still the same request)."""
    extra: dict[str, Any] = {}  # fields a request before entitlements never had
    if request.retrieval_id is not None:
        extra["retrieval_id"] = request.retrieval_id
    if request.principal is not None:
        extra["principal"] = request.principal.to_json()
    if request.candidates:
        extra["candidates"] = request.candidates
    if request.routing is not None:
        extra["routing"] = dataclasses.asdict(request.routing)
    if request.context_assembly is not None:
        extra["context_assembly"] = request.context_assembly
    if request.memory:
        extra["memory"] = request.memory
    return request_fingerprint(
        {
            **extra,
            "request": request.request,
            "actor": request.actor,
            "purpose": request.purpose,
            "policy_version": request.policy_version,
            "route": request.route,
            "model": request.model,
            "tools": request.tools,
            "evidence": request.evidence,
            "excluded": request.excluded,
            "as_of": opening_time("as_of", request.as_of, None),
            "expires_at": opening_time("expires_at", request.expires_at, None),
            "budget": request.budget,
            "inference_id": request.inference_id,
        }
    )


def opening_time(field_name: str, moment: datetime | None, default: datetime | None) -> str | None:
    """A request time in ledger form (``default`` when absent); 422 naming the field when it
    cannot be one."""
    if moment is None:
        return None if default is None else format_time(default)
    return ledger_time(field_name, moment)


class PoolSealer:
    """Seals receipt pools from the spans the evidence port resolves."""

    def __init__(self, resolver: SpanResolver) -> None:
        self.resolver = resolver

    def seal_retrieved(
        self,
        results: list[dict[str, Any]],
        as_of: str,
        errors: list[dict[str, str]],
        gate: GateRecord,
        sealed: list[ResolvedSpan],
    ) -> list[dict[str, Any]]:
        """Seal exactly the source versions a retrieval served (not whichever is in force
        now): each must still be citable at the retrieval's ``as_of`` and visible to the
        principal."""
        resolved = self.resolver.resolve([r["span_id"] for r in results])
        versions = {r["span_id"]: r["version"] for r in results}
        return self.seal(
            [r["span_id"] for r in results],
            as_of,
            errors,
            field="retrieval_id",
            resolved={
                span_id: [c for c in candidates if c.version == versions[span_id]]
                for span_id, candidates in resolved.items()
            },
            expected={r["span_id"]: r["text_sha256"] for r in results},
            gate=gate,
            sealed=sealed,
        )

    def seal(
        self,
        span_ids: list[str],
        as_of: str,
        errors: list[dict[str, str]],
        field: str = "evidence",
        resolved: Mapping[str, Sequence[ResolvedSpan]] | None = None,
        expected: Mapping[str, str] | None = None,
        gate: GateRecord | None = None,
        sealed: list[ResolvedSpan] | None = None,
    ) -> list[dict[str, Any]]:
        """The pool entries of ``span_ids`` citable at ``as_of`` (and visible through
        ``gate``), each refusal appended to ``errors`` naming ``field[i]`` and its rule."""
        if resolved is None:
            resolved = self.resolver.resolve(span_ids)
        pool: list[dict[str, Any]] = []
        for index, span_id in enumerate(span_ids):
            candidates = resolved.get(span_id)
            problem = None
            if not candidates or (gate is not None and gate.hidden(candidates[0])):
                problem = ("exists", f"span {span_id} does not exist")
            else:
                span = pick_version(candidates, as_of)
                if expected is not None and span.text_sha256 != expected[span_id]:
                    raise LedgerIntegrityError(
                        "retrieval_mismatch",
                        f"span {span_id} of {span.source_id} version {span.version} does not "
                        "hash to the text its retrieval recorded",
                        {"span_id": span_id},
                    )
                if gate is not None and not gate.admit(f"{field}[{index}]", span, True):
                    continue  # refused below, naming only the field and the safe code
                if span.withdrawn_at is not None:
                    problem = ("citable", f"span {span_id}: source {span.source_id} is withdrawn")
                elif not span.in_force_at(as_of):
                    problem = (
                        "citable",
                        f"span {span_id}: version {span.version} of {span.source_id} was not in "
                        f"force at {as_of} (effective {span.effective_from} to "
                        f"{span.effective_to or 'now'})",
                    )
                else:
                    pool.append(pool_entry(span))
                    if sealed is not None:
                        sealed.append(span)
            if problem is not None:
                errors.append(
                    {"field": f"{field}[{index}]", "rule": problem[0], "message": problem[1]}
                )
        return pool
