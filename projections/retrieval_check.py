"""The retrieval tables as the registry gives them, for ``verify --read-models``.

Every column of ``retrieval_sources`` and ``retrieval_spans`` follows from the registry's rows
(which the check rebuilds from the verified events) except the dense ranker's output
(:data:`MODEL_COLUMNS`), which only embedding the text again could give; the check compares
every other column, so an edited span text, breadcrumb, interval, withdrawal or term list is
named, and ``provledger projections rebuild`` makes the vectors again.
"""

from __future__ import annotations

from sqlalchemy import Engine, and_, insert, select

from ledger.retrieval.index import IndexedSpan, span_terms
from projections.schema import (
    RETRIEVAL_TABLES,
    metadata,
    retrieval_sources,
    retrieval_spans,
    sources,
    spans,
    versions,
)

MODEL_COLUMNS = frozenset({"vector", "tokens", "model", "row_id", "version_key"})
"""Retrieval columns the check does not recompute: what the ranker's model computes, and the
search index's numbering of spans and versions (in the order the projection wrote them)."""
CHECKED_TABLES = (retrieval_sources, retrieval_spans)
"""The retrieval tables the check compares. ``retrieval_versions`` repeats each version's
interval and withdrawal (checked in ``retrieval_spans``) under the index's numbering, and
``retrieval_state`` holds the rebuild's random epoch."""


def derive_retrieval(engine: Engine) -> None:
    """Write the retrieval rows the replayed registry gives (model columns left empty)."""
    metadata.create_all(engine, tables=list(RETRIEVAL_TABLES))
    joined = (
        select(
            spans,
            versions.c.effective_from,
            versions.c.effective_to,
            sources.c.authority,
            sources.c.withdrawn_at,
        )
        .join(
            versions,
            and_(versions.c.source_id == spans.c.source_id, versions.c.version == spans.c.version),
        )
        .join(sources, sources.c.source_id == spans.c.source_id)
    )
    with engine.begin() as conn:
        conn.execute(
            insert(retrieval_sources).from_select(
                ["source_id", "aggregate_id", "authority"],
                select(sources.c.source_id, sources.c.aggregate_id, sources.c.authority),
            )
        )
        rows = []
        for row in conn.execute(joined).mappings():
            table_ref = (
                None
                if row["table_id"] is None
                else {"table_id": row["table_id"], "row": row["table_row"], "col": row["table_col"]}
            )
            indexed = IndexedSpan(
                span_id=row["span_id"],
                source_id=row["source_id"],
                version=row["version"],
                start=row["start"],
                end=row["end"],
                text=row["text"],
                heading_path=tuple(row["heading_path"]),
                envelope=row["envelope"],
                table_ref=table_ref,
                authority=row["authority"],
                effective_from=row["effective_from"],
                effective_to=row["effective_to"],
                withdrawn=row["withdrawn_at"] is not None,
            )
            rows.append(
                {
                    "source_id": row["source_id"],
                    "version": row["version"],
                    "ord": row["ord"],
                    "span_id": row["span_id"],
                    "start": row["start"],
                    "end": row["end"],
                    "text": row["text"],
                    "heading_path": list(row["heading_path"]),
                    "envelope": row["envelope"],
                    "table_ref": table_ref,
                    "authority": row["authority"],
                    "effective_from": row["effective_from"],
                    "effective_to": row["effective_to"],
                    "withdrawn": int(row["withdrawn_at"] is not None),
                    "terms": span_terms(indexed),
                    "vector": b"",
                    "model": "",
                }
            )
        if rows:
            conn.execute(insert(retrieval_spans), rows)
