"""Read-only queries behind ``GET /v1/claims/{claim_id}``."""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from ledger.errors import NotFound
from projections.registry_queries import (
    NOW,
    AsOf,
    known_versions,
    source_as_of,
    version_status,
)
from projections.schema import claim_bindings, receipt_claims, receipts, sources, spans, versions


async def receipt_of_claim(conn: AsyncConnection, claim_id: str) -> str:
    """The receipt that holds ``claim_id``."""
    receipt_id = (
        await conn.execute(
            select(receipt_claims.c.receipt_id).where(receipt_claims.c.claim_id == claim_id)
        )
    ).scalar()
    if receipt_id is None:
        raise NotFound(f"no claim {claim_id!r}")
    return str(receipt_id)


# Over 60 lines on purpose: the queries that render one bound span (span, source, version,
# window, excerpt, status) share the connection and the span's coordinates.
async def binding_view(
    conn: AsyncConnection,
    span_id: str,
    source_id: str,
    version: int,
    window: int = 1,
    as_of: AsOf = NOW,
) -> dict[str, Any]:
    """A bound span rendered for a reader: document, breadcrumb, excerpt, highlight, status."""
    span = (
        (
            await conn.execute(
                select(spans).where(
                    spans.c.span_id == span_id,
                    spans.c.source_id == source_id,
                    spans.c.version == version,
                )
            )
        )
        .mappings()
        .first()
    )
    source = (
        (await conn.execute(select(sources).where(sources.c.source_id == source_id)))
        .mappings()
        .first()
    )
    if span is None or source is None:
        raise NotFound(f"span {span_id} of {source_id} version {version} is not in the registry")
    row = (
        (
            await conn.execute(
                select(
                    versions.c.version_hash,
                    versions.c.effective_from,
                    versions.c.effective_to,
                    versions.c.title,
                ).where(versions.c.source_id == source_id, versions.c.version == version)
            )
        )
        .mappings()
        .one()
    )
    bounds = (
        await conn.execute(
            select(func.min(spans.c.start), func.max(spans.c.end)).where(
                and_(
                    spans.c.source_id == source_id,
                    spans.c.version == version,
                    spans.c.parent_span_id.is_(None),
                    spans.c.sent_index.between(
                        span["sent_index"] - window, span["sent_index"] + window
                    ),
                )
            )
        )
    ).one()
    start = min(bounds[0], span["start"]) if bounds[0] is not None else span["start"]
    end = max(bounds[1], span["end"]) if bounds[1] is not None else span["end"]
    excerpt = (
        await conn.execute(
            select(func.substr(versions.c.frozen_text, start + 1, end - start)).where(
                versions.c.source_id == source_id, versions.c.version == version
            )
        )
    ).scalar_one()
    status = version_status(
        source_as_of(source, await known_versions(conn, source_id, as_of), as_of), version
    )
    return {
        "span_id": span_id,
        "source_id": source_id,
        "title": row["title"],
        "uri": source["uri"],
        "authority": source["authority"],
        "version": version,
        "version_hash": row["version_hash"],
        "version_date": row["effective_from"],
        "effective_to": row["effective_to"],
        "heading_path": span["heading_path"],
        "page": span["page"],
        "text": span["text"],
        "excerpt": excerpt,
        "highlight": [span["start"] - start, span["end"] - start],
        "status": status,
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
                "status": "expired" if expired_at else "open",
                "expiry_reason": reason,
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
