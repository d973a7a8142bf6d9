"""The registry read model as the ledger's :class:`~ledger.registry.evidence.SpanResolver`."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence

from sqlalchemy import Engine, RowMapping, and_, bindparam, select

from ledger.registry.evidence import ResolvedSpan
from projections.schema import sources, spans, versions

_QUERY = (
    select(
        spans.c.span_id,
        spans.c.source_id,
        spans.c.version,
        spans.c.text,
        spans.c.envelope,
        spans.c.heading_path,
        spans.c.start,
        spans.c.end,
        versions.c.version_hash,
        versions.c.effective_from,
        versions.c.effective_to,
        sources.c.withdrawn_at,
        sources.c.title,
        sources.c.uri,
    )
    .join(
        versions,
        and_(versions.c.source_id == spans.c.source_id, versions.c.version == spans.c.version),
    )
    .join(sources, sources.c.source_id == spans.c.source_id)
)


_BY_IDS = _QUERY.where(spans.c.span_id.in_(bindparam("ids", expanding=True)))


class RegistrySpanResolver:
    """Looks spans up in the registry tables; catches the projection up on a miss."""

    def __init__(self, engine: Engine, catch_up: Callable[[], object] | None = None) -> None:
        self.engine = engine
        self.catch_up = catch_up

    def resolve(self, span_ids: Iterable[str]) -> Mapping[str, Sequence[ResolvedSpan]]:
        """Every known version of each span id."""
        wanted = sorted(set(span_ids))
        found = self._query(wanted)
        if self.catch_up is not None and len(found) < len(wanted):
            # A span ingested by another process may not be projected yet.
            self.catch_up()
            found = self._query(wanted)
        return found

    def _query(self, wanted: list[str]) -> dict[str, list[ResolvedSpan]]:
        found: dict[str, list[ResolvedSpan]] = defaultdict(list)
        if not wanted:
            return found
        with self.engine.connect() as conn:
            for offset in range(0, len(wanted), 500):
                chunk = wanted[offset : offset + 500]
                for row in conn.execute(_BY_IDS, {"ids": chunk}).mappings():
                    found[row["span_id"]].append(_resolved(row))
        return found


def _resolved(row: RowMapping) -> ResolvedSpan:
    return ResolvedSpan(
        span_id=row["span_id"],
        source_id=row["source_id"],
        version=row["version"],
        version_hash=row["version_hash"],
        text=row["text"],
        envelope=row["envelope"],
        effective_from=row["effective_from"],
        effective_to=row["effective_to"],
        withdrawn_at=row["withdrawn_at"],
        source_title=row["title"],
        source_uri=row["uri"],
        heading_path=tuple(row["heading_path"]),
        start=row["start"],
        end=row["end"],
    )


def spans_in_range(
    engine: Engine, source_id: str, version: int, start: int, end: int
) -> list[ResolvedSpan]:
    """Top-level spans of one version that lie inside ``[start, end)``, in text order."""
    query = _QUERY.where(
        spans.c.source_id == source_id,
        spans.c.version == version,
        spans.c.parent_span_id.is_(None),
        spans.c.start >= start,
        spans.c.end <= end,
    ).order_by(spans.c.ord)
    with engine.connect() as conn:
        return [_resolved(row) for row in conn.execute(query).mappings()]
