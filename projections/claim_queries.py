"""Read-only queries behind ``GET /v1/claims/{claim_id}``."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from sqlalchemy import RowMapping, and_, case, func, select, tuple_
from sqlalchemy.ext.asyncio import AsyncConnection

from ledger.errors import NotFound
from ledger.receipts.summaries import affected_standing
from projections.registry_queries import (
    NOW,
    AsOf,
    source_as_of,
    version_status,
)
from projections.schema import claim_bindings, receipt_claims, receipts, sources, spans, versions

Coordinates = tuple[str, str, int]
"""A bound span's coordinates in the registry: ``(span_id, source_id, version)``."""


@dataclass(frozen=True)
class ClaimLookup:
    """What the read model knows of one claim: its receipt and its bound spans rendered."""

    receipt_id: str
    views: dict[Coordinates, dict[str, Any]]


async def claim_lookup(conn: AsyncConnection, claim_id: str, as_of: AsOf = NOW) -> ClaimLookup:
    """The receipt that holds ``claim_id`` and the views of the spans the read model has it
    bound to, in a fixed number of queries whatever the number of bindings.

    The read model is an index here: the caller takes the claim itself from the verified
    receipt and asks :func:`binding_views` for any binding the index did not cover (a claim
    read as it stood before a repair).
    """
    rows = (
        await conn.execute(
            select(
                receipt_claims.c.receipt_id,
                claim_bindings.c.span_id,
                claim_bindings.c.source_id,
                claim_bindings.c.version,
            )
            .select_from(
                receipt_claims.outerjoin(
                    claim_bindings, claim_bindings.c.claim_id == receipt_claims.c.claim_id
                )
            )
            .where(receipt_claims.c.claim_id == claim_id)
        )
    ).all()
    if not rows:
        raise NotFound(f"no claim {claim_id!r}")
    coordinates = [
        (span_id, source_id, version)
        for _, span_id, source_id, version in rows
        if span_id is not None and source_id is not None and version is not None
    ]
    return ClaimLookup(str(rows[0][0]), await binding_views(conn, coordinates, as_of))


async def binding_views(
    conn: AsyncConnection,
    coordinates: Collection[Coordinates],
    as_of: AsOf = NOW,
    window: int = 1,
    *,
    with_cells: bool = False,
) -> dict[Coordinates, dict[str, Any]]:
    """Bound spans rendered for a reader (document, breadcrumb, excerpt, highlight, status),
    keyed by their coordinates, in three queries however many spans are asked for.

    The excerpt is the span widened to the top-level sentences ``window`` either side of it.
    A span whose span, version or source row is not in the registry is left out. With
    ``with_cells``, each view also carries ``cell``: the table reference and envelope of a
    span that is a table cell, else None.
    """
    wanted = sorted(set(coordinates))
    if not wanted:
        return {}
    rows = await _span_rows(conn, wanted, window)
    states = await _sources_as_of(conn, sorted({source_id for _, source_id, _ in wanted}), as_of)
    views: dict[Coordinates, dict[str, Any]] = {}
    for row in rows:
        source = states.get(row["source_id"])
        if source is None:
            continue
        view = {
            "span_id": row["span_id"],
            "source_id": row["source_id"],
            "title": row["title"],
            "uri": source["uri"],
            "authority": source["authority"],
            "version": row["version"],
            "version_hash": row["version_hash"],
            "version_date": row["effective_from"],
            "effective_to": row["effective_to"],
            "heading_path": row["heading_path"],
            "page": row["page"],
            "text": row["text"],
            "excerpt": row["excerpt"],
            "highlight": [
                row["start"] - row["excerpt_start"],
                row["end"] - row["excerpt_start"],
            ],
            "status": version_status(source, row["version"]),
        }
        if with_cells:
            view["cell"] = (
                None
                if row["table_id"] is None
                else {
                    "table_id": row["table_id"],
                    "row": row["table_row"],
                    "col": row["table_col"],
                    "envelope": row["envelope"],
                }
            )
        views[(row["span_id"], row["source_id"], row["version"])] = view
    return views


async def _span_rows(
    conn: AsyncConnection, wanted: list[Coordinates], window: int
) -> list[RowMapping]:
    """The span, version, table and excerpt columns of each wanted span, in one query.

    The excerpt's bounds are computed once per span in a grouped join (not in correlated
    subqueries, which PostgreSQL runs once per use of each bound); spans are picked by id
    and by version pair (an index scan and a short list, where a condition per coordinate
    makes PostgreSQL plan one branch per span), and the exact coordinates checked here."""
    target = spans.alias("target")
    around = spans.alias("around")
    pairs = sorted({(source_id, version) for _, source_id, version in wanted})
    edges = (
        select(
            target.c.source_id,
            target.c.version,
            target.c.ord,
            func.min(around.c.start).label("low"),
            func.max(around.c.end).label("high"),
        )
        .select_from(
            target.outerjoin(
                around,
                and_(
                    around.c.source_id == target.c.source_id,
                    around.c.version == target.c.version,
                    around.c.parent_span_id.is_(None),
                    around.c.sent_index.between(
                        target.c.sent_index - window, target.c.sent_index + window
                    ),
                ),
            )
        )
        .where(
            target.c.span_id.in_(sorted({span_id for span_id, _, _ in wanted})),
            tuple_(target.c.source_id, target.c.version).in_(pairs),
        )
        .group_by(target.c.source_id, target.c.version, target.c.ord)
        .subquery("edges")
    )
    start = case((edges.c.low < spans.c.start, edges.c.low), else_=spans.c.start)
    end = case((edges.c.high > spans.c.end, edges.c.high), else_=spans.c.end)
    query = select(
        spans.c.span_id,
        spans.c.source_id,
        spans.c.version,
        spans.c.start,
        spans.c.end,
        spans.c.text,
        spans.c.heading_path,
        spans.c.page,
        spans.c.table_id,
        spans.c.table_row,
        spans.c.table_col,
        spans.c.envelope,
        versions.c.title,
        versions.c.version_hash,
        versions.c.effective_from,
        versions.c.effective_to,
        start.label("excerpt_start"),
        func.substr(versions.c.frozen_text, start + 1, end - start).label("excerpt"),
    ).select_from(
        edges.join(
            spans,
            and_(
                spans.c.source_id == edges.c.source_id,
                spans.c.version == edges.c.version,
                spans.c.ord == edges.c.ord,
            ),
        ).join(
            versions,
            and_(
                versions.c.source_id == spans.c.source_id,
                versions.c.version == spans.c.version,
            ),
        )
    )
    exact = set(wanted)
    return [
        row
        for row in (await conn.execute(query)).mappings().all()
        if (row["span_id"], row["source_id"], row["version"]) in exact
    ]


async def _sources_as_of(
    conn: AsyncConnection, source_ids: list[str], as_of: AsOf
) -> dict[str, dict[str, Any]]:
    """Each source's row as it stood at ``as_of`` (two queries for all of them)."""
    source_rows = {
        row["source_id"]: row
        for row in (await conn.execute(select(sources).where(sources.c.source_id.in_(source_ids))))
        .mappings()
        .all()
    }
    known: dict[str, list[RowMapping]] = {source_id: [] for source_id in source_ids}
    for row in (
        (
            await conn.execute(
                select(
                    versions.c.source_id,
                    versions.c.version,
                    versions.c.title,
                    versions.c.recorded_at,
                )
                .where(versions.c.source_id.in_(source_ids))
                .order_by(versions.c.source_id, versions.c.version)
            )
        )
        .mappings()
        .all()
    ):
        if as_of.knows(row["recorded_at"]):
            known[row["source_id"]].append(row)
    return {
        source_id: source_as_of(source, known[source_id], as_of)
        for source_id, source in source_rows.items()
    }


async def affected_by_version(
    conn: AsyncConnection, source_id: str, version: int
) -> dict[str, Any]:
    """Receipts and committed claims that stood on one source version."""
    exists = (
        await conn.execute(
            select(versions.c.version).where(
                versions.c.source_id == source_id, versions.c.version == version
            )
        )
    ).first()
    if exists is None:
        raise NotFound(f"source {source_id!r} has no version {version}")
    rows = (
        await conn.execute(
            select(
                receipt_claims.c.receipt_id,
                receipt_claims.c.claim_id,
                receipt_claims.c.status,
                claim_bindings.c.span_id,
                receipts.c.expired_at,
                receipts.c.expiry_reason,
            )
            .join(claim_bindings, claim_bindings.c.claim_id == receipt_claims.c.claim_id)
            .join(receipts, receipts.c.receipt_id == receipt_claims.c.receipt_id)
            .where(
                claim_bindings.c.source_id == source_id,
                claim_bindings.c.version == version,
                receipt_claims.c.committed == 1,
            )
            .order_by(receipt_claims.c.receipt_id, receipt_claims.c.claim_id)
        )
    ).all()
    by_receipt: dict[str, dict[str, Any]] = {}
    for receipt_id, claim_id, status, span_id, expired_at, reason in rows:
        entry = by_receipt.setdefault(
            receipt_id,
            {
                "receipt_id": receipt_id,
                **affected_standing({"expired_at": expired_at, "expiry_reason": reason}),
                "claims": {},
            },
        )
        claim = entry["claims"].setdefault(
            claim_id, {"claim_id": claim_id, "status": status, "span_ids": []}
        )
        claim["span_ids"].append(span_id)
    receipts_out = [
        {**entry, "claims": list(entry["claims"].values())} for entry in by_receipt.values()
    ]
    return {
        "source_id": source_id,
        "version": version,
        "receipts": receipts_out,
        "receipt_count": len(receipts_out),
        "claim_count": sum(len(r["claims"]) for r in receipts_out),
    }
