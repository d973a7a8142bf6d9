"""Spans the gate reads, rebuilt from verified source events.

The registry read model (``projections.span_resolver``) answers which source versions hold a
span id. It is a database table like any other, so nothing it says is used as it stands: each
span it returns is rebuilt from its source's events, read through the verified path
(:mod:`ledger.audit.verified_reads`):

- the source aggregate gives the title, the URI, whether and when the source was withdrawn, and
  each version's signed version hash and effective range (a version ends where its successor
  starts);
- the version's ``version added`` event gives the frozen text, which must hash to the signed
  version hash; the span must be one of the event's spans (its id is derived from the source
  id, the version hash and its offsets), and its text is the frozen text at those offsets.

A row that disagrees with the verified events about anything frozen (text, offsets, envelope,
heading path, version hash, effective start, or a version, span or withdrawal the ledger does
not hold) raises :class:`~ledger.errors.LedgerIntegrityError` with reason
``read_model_mismatch``: the commit is refused, not judged. A row that is only behind the log
(its projection has not yet seen a newer version or a withdrawal) is not an error: the
verified value is what the gate reads.

Decoded versions are kept per process within a budget of text characters; the source
aggregates are kept as :class:`~ledger.eventlog.snapshots.Snapshots`, brought up to date (and the
new events verified) on every read.
"""

from __future__ import annotations

import hmac
import sys
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, NoReturn
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError

from ledger.access.attributes import SourceAccess
from ledger.errors import LedgerIntegrityError
from ledger.eventlog.snapshots import Snapshots
from ledger.registry.evidence import ResolvedSpan, SpanResolver
from ledger.registry.ingestion import version_hash_of
from ledger.registry.source import Source, VersionInfo, source_aggregate_id
from ledger.registry.span_codec import decode_spans
from ledger.text.spans import Span

if TYPE_CHECKING:
    from ledger.eventlog.application import Ledger

MISMATCH = "read_model_mismatch"
SOURCE_SNAPSHOTS = 256
FROZEN_BUDGET = 16 * 1024 * 1024
"""Bytes of decoded frozen versions (texts, spans) kept per process, as
:attr:`FrozenVersion.weight` estimates them."""
SPAN_BYTES = 300
"""A decoded span's own size beside its text (the object, its offsets, id, breadcrumb and
table reference; measured with ``tracemalloc``: 290-470 bytes)."""


@dataclass(frozen=True)
class FrozenVersion:
    """One version's verified frozen text and its spans by id."""

    text: str
    version_hash: str
    spans: dict[str, Span]

    @cached_property
    def weight(self) -> int:
        """Bytes held, estimated once (counted when kept, again when dropped): the text,
        every span's text and :data:`SPAN_BYTES` a span (within a third of what
        ``tracemalloc`` measures, for six sentences or 1,600)."""
        texts = sys.getsizeof(self.text) + sum(sys.getsizeof(s.text) for s in self.spans.values())
        return texts + SPAN_BYTES * len(self.spans)


class VerifiedSpans:
    """A :class:`~ledger.registry.evidence.SpanResolver` answering from verified events, the
    read model serving only as the index from span id to source version."""

    def __init__(self, index: SpanResolver, ledger: Ledger) -> None:
        self.index = index
        self.ledger = ledger
        self.sources: Snapshots[Source] = Snapshots(ledger, SOURCE_SNAPSHOTS)
        self._lock = threading.Lock()
        self._frozen: OrderedDict[tuple[UUID, int], FrozenVersion] = OrderedDict()
        self._weight = 0

    def resolve(self, span_ids: Iterable[str]) -> Mapping[str, Sequence[ResolvedSpan]]:
        """Every version of each span id, as the verified events have it."""
        found = self.index.resolve(span_ids)
        sources: dict[str, Source] = {}
        return {
            span_id: [self._verified(row, sources) for row in rows]
            for span_id, rows in found.items()
        }

    def _verified(self, row: ResolvedSpan, sources: dict[str, Source]) -> ResolvedSpan:
        source = sources.get(row.source_id)
        if source is None:
            try:
                source = self.sources.get(source_aggregate_id(row.source_id))
            except AggregateNotFoundError:
                _mismatch(row, f"the ledger has no source {row.source_id!r}")
            sources[row.source_id] = source
        if source.source_id != row.source_id:
            _mismatch(row, f"source {row.source_id!r} is stored as {source.source_id!r}")
        index = next((i for i, v in enumerate(source.versions) if v.version == row.version), None)
        if index is None:
            _mismatch(row, f"the ledger has no version {row.version} of {row.source_id!r}")
        info = source.versions[index]
        following = source.versions[index + 1] if index + 1 < len(source.versions) else None
        effective_to = None if following is None else following.effective_from
        span = self._frozen_version(source, info).spans.get(row.span_id)
        if span is None:
            _mismatch(row, f"version {info.version} of {row.source_id!r} has no such span")
        differences = [
            name
            for name, stored, verified in (
                ("version_hash", row.version_hash, info.version_hash),
                ("effective_from", row.effective_from, info.effective_from),
            )
            if stored != verified
        ]
        differences += _span_differences(
            span, row.start, row.end, row.heading_path, row.envelope, row.text
        )
        # Lagging rows (None) are fine; a value the verified events do not have is not.
        if row.effective_to is not None and row.effective_to != effective_to:
            differences.append("effective_to")
        if row.withdrawn_at is not None and row.withdrawn_at != source.withdrawn_at:
            differences.append("withdrawn_at")
        if differences:
            _mismatch(row, f"the row's {', '.join(differences)} differ from the signed events")
        return ResolvedSpan(
            span_id=span.span_id,
            source_id=source.source_id,
            version=info.version,
            version_hash=info.version_hash,
            text=span.text,
            envelope=span.envelope,
            effective_from=info.effective_from,
            effective_to=effective_to,
            withdrawn_at=source.withdrawn_at,
            source_title=source.title,
            source_uri=source.uri,
            heading_path=span.heading_path,
            start=span.start,
            end=span.end,
            version_title=info.title,
            authority=source.authority,
            access=source.access,
        )

    def source_access(self, source_id: str) -> SourceAccess:
        """A source's access attributes as its verified events hold them (NotFound-free: an
        unknown source is a read-model row the ledger does not hold)."""
        try:
            source = self.sources.get(source_aggregate_id(source_id))
        except AggregateNotFoundError:
            _served_mismatch(source_id, 0, None, "the ledger has no such source")
        return source.access

    def frozen(self, source_id: str, version: int) -> FrozenVersion:
        """One version's frozen text and spans from the verified ``version added`` event
        (its text hashing to the signed version hash); ``read_model_mismatch`` when the ledger
        holds no such version."""
        try:
            source = self.sources.get(source_aggregate_id(source_id))
        except AggregateNotFoundError:
            _served_mismatch(source_id, version, None, "the ledger has no such source")
        info = next((v for v in source.versions if v.version == version), None)
        if source.source_id != source_id or info is None:
            _served_mismatch(source_id, version, None, "the ledger has no such version")
        return self._frozen_version(source, info)

    def find_access(self, source_id: str) -> SourceAccess | None:
        """A source's access attributes as its verified events hold them, or None when the
        ledger holds no such source."""
        try:
            source = self.sources.get(source_aggregate_id(source_id))
        except AggregateNotFoundError:
            return None
        return source.access if source.source_id == source_id else None

    def check_served(
        self,
        source_id: str,
        version: int,
        spans: Sequence[Mapping[str, Any]] = (),
        version_hash: str | None = None,
        frozen_text: str | None = None,
    ) -> None:
        """Refuse what a read is about to serve unless the verified events hold it.

        ``spans`` are span bodies as the API shows them (id, offsets, text, heading path and,
        for a cell, its envelope); ``version_hash`` and ``frozen_text`` the version's, when
        served. Anything that differs raises ``read_model_mismatch``, so an edited read-model
        row is never served: the same rule the gate's reads follow.
        """
        frozen = self.frozen(source_id, version)
        if version_hash is not None and version_hash != frozen.version_hash:
            _served_mismatch(source_id, version, None, "the row's version_hash differs")
        if frozen_text is not None and not hmac.compare_digest(
            frozen_text.encode(), frozen.text.encode()
        ):
            _served_mismatch(source_id, version, None, "the row's frozen_text differs")
        for served in spans:
            span = frozen.spans.get(served["span_id"])
            if span is None:
                _served_mismatch(source_id, version, served["span_id"], "no such span")
            differences = _span_differences(
                span,
                served["start"],
                served["end"],
                served["heading_path"],
                served.get("envelope", span.envelope),
                str(served["text"]),
            )
            if differences:
                _served_mismatch(
                    source_id,
                    version,
                    served["span_id"],
                    f"the row's {', '.join(differences)} differ from the signed events",
                )

    def _frozen_version(self, source: Source, info: VersionInfo) -> FrozenVersion:
        key = (source.id, info.event_version)
        with self._lock:
            frozen = self._frozen.get(key)
            if frozen is not None:
                self._frozen.move_to_end(key)
                return frozen
        events = list(
            self.ledger.events.get(source.id, gt=info.event_version - 1, lte=info.event_version)
        )
        event: Any = events[0] if events else None
        if not isinstance(event, Source.VersionAdded) or event.version != info.version:
            raise LedgerIntegrityError(  # pragma: no cover - the aggregate was folded from it
                MISMATCH,
                f"version {info.version} of {source.source_id!r} is not at event "
                f"{info.event_version}",
                {"originator_id": str(source.id), "originator_version": info.event_version},
            )
        if version_hash_of(event.text) != event.version_hash:
            raise LedgerIntegrityError(
                MISMATCH,
                f"the frozen text of version {info.version} of {source.source_id!r} does not "
                f"hash to its signed version hash",
                {"originator_id": str(source.id), "originator_version": info.event_version},
            )
        spans = decode_spans(
            source.source_id,
            event.version_hash,
            event.text,
            event.heading_paths,
            event.spans,
            event.cells,
        )
        frozen = FrozenVersion(event.text, event.version_hash, {s.span_id: s for s in spans})
        with self._lock:
            if key not in self._frozen:
                self._frozen[key] = frozen
                self._weight += frozen.weight
            while self._weight > FROZEN_BUDGET and len(self._frozen) > 1:
                _, dropped = self._frozen.popitem(last=False)
                self._weight -= dropped.weight
        return frozen


def _mismatch(row: ResolvedSpan, detail: str) -> NoReturn:
    raise LedgerIntegrityError(
        MISMATCH,
        f"registry span {row.span_id} ({row.source_id} version {row.version}): {detail}",
        {"table": "registry_spans", "span_id": row.span_id, "source_id": row.source_id},
    )


def _span_differences(
    span: Span, start: int, end: int, heading_path: Sequence[str], envelope: str | None, text: str
) -> list[str]:
    """The names of the fields a stored span differs in from the verified ``span``."""
    differences = [
        name
        for name, stored, verified in (
            ("start", start, span.start),
            ("end", end, span.end),
            ("envelope", envelope, span.envelope),
            ("heading_path", tuple(heading_path), span.heading_path),
        )
        if stored != verified
    ]
    if not hmac.compare_digest(text.encode(), span.text.encode()):
        differences.append("text")
    return differences


def _served_mismatch(source_id: str, version: int, span_id: str | None, detail: str) -> NoReturn:
    where = f"registry version {source_id} version {version}"
    if span_id is not None:
        where += f", span {span_id}"
    position: dict[str, object] = {
        "table": "registry_spans" if span_id is not None else "registry_versions",
        "source_id": source_id,
        "version": version,
    }
    if span_id is not None:
        position["span_id"] = span_id
    raise LedgerIntegrityError(MISMATCH, f"{where}: {detail}", position)
