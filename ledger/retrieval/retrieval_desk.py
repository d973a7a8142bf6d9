"""Retrieve, verify what is about to be served, record it as a signed event, answer.

The index is a projection (it may lag or be edited), so nothing it says is served as it
stands: every span that leaves is checked against the verified events of its source version
(text, offsets, breadcrumb, envelope; :meth:`VerifiedSpans.check_served`) and the version is
resolved through them (version hash, in force at ``as_of``, not withdrawn). A span whose
verified version is not in force is withheld with ``not-in-force`` (the index had not yet
seen a supersession or withdrawal); a span whose text differs refuses the whole request
(``read_model_mismatch``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from eventsourcing.application import AggregateNotFoundError

from ledger.access.attributes import Pins, Principal
from ledger.access.source_filter import UNSEEN
from ledger.errors import InvalidInput, NotFound, PermissionDenied
from ledger.eventlog.clock import format_time, ledger_time
from ledger.eventlog.port import EventLog
from ledger.registry.evidence import ResolvedSpan
from ledger.retrieval.port import SearchIndex
from ledger.retrieval.record import Retrieval, retrieval_aggregate_id
from ledger.retrieval.retriever import Hit, HybridRetriever, RetrievalQuery
from ledger.retrieval.visibility import (
    Entitlements,
    FilterFactory,
    FirstRefusal,
    SourceFilter,
    allow_all,
)

NOT_IN_FORCE = "not-in-force"


class IndexSource(Protocol):
    """The process's current retrieval index (``projections.retrieval_index``)."""

    def current(self) -> SearchIndex:
        """The index as of the retrieval projection's latest position."""


class ServedSpans(Protocol):
    """Verified reads of spans (``ledger.registry.verified_spans.VerifiedSpans``)."""

    def resolve(self, span_ids: Iterable[str]) -> Mapping[str, Sequence[ResolvedSpan]]:
        """Every version of each span id, from verified events."""

    def check_served(
        self,
        source_id: str,
        version: int,
        spans: Sequence[Mapping[str, Any]] = (),
        version_hash: str | None = None,
        frozen_text: str | None = None,
    ) -> None:
        """Raise unless the verified events hold these spans as given."""


@dataclass(frozen=True)
class RetrievalRequest:
    """A retrieval as a caller asks for it. ``principal`` is recorded as the request states
    it; ``filters`` is the request's filter object as recorded; ``source_ids`` and
    ``authorities`` narrow the candidates."""

    query: str
    principal: Principal
    k: int = 10
    as_of: datetime | None = None
    """Versions in force then; ``None``: now."""
    source_ids: tuple[str, ...] | None = None
    authorities: tuple[str, ...] | None = None
    filters: dict[str, Any] | None = None
    policy_version: str | None = None
    """The access policy version to decide by; ``None``: the one in force."""


@dataclass(frozen=True)
class RetrievalAnswer:
    """A recorded retrieval: its id, the hits with their verified versions, exclusions."""

    retrieval_id: str
    as_of: str
    hits: list[tuple[Hit, ResolvedSpan]]
    exclusions: list[dict[str, Any]]
    rankers: list[dict[str, str]]
    position: int


class RetrievalDesk:
    """Runs retrievals for callers and records each one in the ledger."""

    def __init__(
        self,
        log: EventLog,
        indexes: IndexSource,
        retriever: HybridRetriever,
        served: ServedSpans,
        entitlements: Entitlements,
        visibility: FilterFactory = allow_all,
    ) -> None:
        self.log = log
        self.indexes = indexes
        self.retriever = retriever
        self.served = served
        self.entitlements = entitlements
        self.visibility = visibility

    def answer(self, request: RetrievalRequest, pins: Pins | None, actor: str) -> RetrievalAnswer:
        """Retrieve for a caller whose API key pins ``pins``: the request's principal, checked
        as every principal is (``Principal.parse``) and bounded by the pins, decides the
        entitlements under the policy in force (or the one named) before anything is read;
        then retrieve at ``as_of`` (now by default), verify and record (:meth:`retrieve`)."""
        decided = Principal.parse(request.principal.to_json())
        entitlement = self.entitlements(pins, decided, request.policy_version, request.source_ids)
        as_of = (
            format_time(datetime.now(UTC))
            if request.as_of is None
            else ledger_time("as_of", request.as_of)
        )
        query = RetrievalQuery(
            request.query, request.k, as_of, entitlement.source_ids, request.authorities
        )
        return self.retrieve(
            query,
            request.principal,
            actor,
            request.filters,
            entitlement.filter,
            entitlement.policy_version,
        )

    def retrieve(
        self,
        query: RetrievalQuery,
        principal: Principal,
        actor: str,
        filters: dict[str, Any] | None = None,
        entitlement: SourceFilter | None = None,
        policy_version: str | None = None,
    ) -> RetrievalAnswer:
        """Retrieve for ``principal``, verify, record; the answer names the new retrieval.

        ``entitlement`` (the access policy ``policy_version`` decides by) is asked before
        the injected visibility filter; both are recorded only as exclusion codes."""
        index = self.indexes.current()
        visibility = self.visibility(principal)
        if entitlement is not None:
            visibility = FirstRefusal((entitlement, visibility))
        outcome = self.retriever.retrieve(index, query, visibility)
        hits, late = self._verified(outcome.hits, query.as_of)
        # A source the key may not see is, to it, one the ledger does not hold: not counted.
        exclusions = {c: n for c, n in outcome.exclusions.items() if c != UNSEEN}
        if late:
            exclusions[NOT_IN_FORCE] = exclusions.get(NOT_IN_FORCE, 0) + late
        listed = [{"code": code, "count": count} for code, count in sorted(exclusions.items())]
        record = Retrieval.perform(
            actor,
            query=query.query,
            principal=principal.to_json(),
            k=query.k,
            as_of=query.as_of,
            filters=filters,
            results=[_result(hit, span) for hit, span in hits],
            exclusions=listed,
            rankers=outcome.rankers,
            policy_version=policy_version,
        )
        recordings = self.log.commit(record)
        return RetrievalAnswer(
            record.retrieval_id,
            query.as_of,
            hits,
            listed,
            outcome.rankers,
            recordings[-1].notification.id,
        )

    def _verified(self, hits: list[Hit], as_of: str) -> tuple[list[tuple[Hit, ResolvedSpan]], int]:
        groups: dict[tuple[str, int], list[Hit]] = {}
        for hit in hits:
            groups.setdefault((hit.span.source_id, hit.span.version), []).append(hit)
        for (source_id, version), members in groups.items():
            self.served.check_served(source_id, version, [h.span.served() for h in members])
        resolved = self.served.resolve({hit.span.span_id for hit in hits})
        kept: list[tuple[Hit, ResolvedSpan]] = []
        late = 0
        for hit in hits:
            span = next(
                (
                    candidate
                    for candidate in resolved.get(hit.span.span_id, ())
                    if (candidate.source_id, candidate.version)
                    == (hit.span.source_id, hit.span.version)
                ),
                None,
            )
            if span is None or span.withdrawn_at is not None or not span.in_force_at(as_of):
                late += 1
                continue
            kept.append((hit, span))
        return kept, late

    def get(self, retrieval_id: str) -> Retrieval:
        """A recorded retrieval, or :class:`NotFound`."""
        try:
            record: Retrieval = self.log.repository.get(retrieval_aggregate_id(retrieval_id))
        except AggregateNotFoundError:
            raise NotFound(f"no retrieval {retrieval_id!r}") from None
        return record


def _result(hit: Hit, span: ResolvedSpan) -> dict[str, Any]:
    return {
        "span_id": span.span_id,
        "source_id": span.source_id,
        "version": span.version,
        "version_hash": span.version_hash,
        "text_sha256": span.text_sha256,
        "scores": hit.scores(),
    }


def retrieval_for_receipt(log: EventLog, retrieval_id: str, actor: str) -> Retrieval:
    """The retrieval a receipt is opened from: it must exist and belong to ``actor``.

    Unknown ids are 422 (``retrieval_id`` / ``exists``); another actor's retrieval is 403, and
    says nothing about it beyond that.
    """
    try:
        record: Retrieval = log.repository.get(retrieval_aggregate_id(retrieval_id))
    except AggregateNotFoundError:
        raise InvalidInput(
            "retrieval_id", "exists", f"retrieval {retrieval_id} does not exist"
        ) from None
    if record.actor != actor:
        raise PermissionDenied(f"retrieval {retrieval_id} was made by another actor")
    return record
