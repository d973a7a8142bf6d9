"""The receipt page's content: the verified receipt, each claim, and each citation assembled
once, with everything its expansion shows (breadcrumb, excerpt, table cell, checks, repairs,
warnings), so opening a citation fetches nothing.

The receipt and its claims come from the receipt's verified events (the receipt desk); the
registry read model only renders the cited spans, exactly as ``GET /v1/claims/{id}`` does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from fastapi.concurrency import run_in_threadpool
from markupsafe import Markup

from api.console import words
from api.console.excerpt import pieces
from api.services import Services
from ledger.receipts.document import receipt_document
from projections.claim_queries import Coordinates, binding_views
from projections.engagement import claim_counts


@lru_cache(maxsize=4096)
def _check_row(check: str, outcome: str, reason: str, detail: str) -> Markup:
    """One check as a list item, escaped by ``Markup.format`` (every value is untrusted).

    Rows repeat across the claims of a page (most checks pass with the same code), so each is
    built once per process; a row carries its detail only when the check did not pass."""
    shown = Markup(' <span class="detail">{}</span>').format(detail) if detail else ""
    return Markup('<li class="outcome-{}"><b>{}</b> {} <code>{}</code>{}</li>\n').format(
        outcome,
        words.outcome_words(outcome),
        words.reason_words(check, reason),
        reason,
        shown,
    )


def checks_html(checks: list[dict[str, Any]]) -> Markup:
    """The gate's checks as list items: result, meaning in words, reason code."""
    return Markup("").join(
        _check_row(
            c["check"],
            c["outcome"],
            c["reason"],
            "" if c["outcome"] == "pass" else str(c.get("detail") or ""),
        )
        for c in checks
    )


def _citation(
    claim: dict[str, Any],
    index: int,
    binding: dict[str, Any],
    view: dict[str, Any] | None,
    cell: dict[str, Any] | None,
    receipt_expired: bool,
) -> dict[str, Any]:
    """One citation of ``claim`` with what its expansion shows."""
    warnings: list[str] = []
    status = None if view is None else view["status"]
    if status in ("superseded", "withdrawn"):
        warnings.append(status)
    if view is None and binding.get("source_id"):
        warnings.append("span_not_in_pool")
    if receipt_expired:
        warnings.append("expired")
    checks = checks_html(
        [c for c in claim.get("checks", []) if c.get("span_id") in (None, binding["span_id"])]
    )
    repairs = [r for r in claim.get("repairs", []) if r.get("binding_index") == index]
    excerpt = []
    if view is not None:
        excerpt = pieces(
            view["excerpt"], tuple(view["highlight"]), claim["text"], binding.get("quote")
        )
    return {
        "n": index + 1,
        "span_id": binding["span_id"],
        "role": binding["role"],
        "quote": binding.get("quote"),
        "source_id": binding.get("source_id"),
        "version": binding.get("version"),
        "title": None if view is None else view["title"],
        "breadcrumb": [] if view is None else list(view["heading_path"] or []),
        "page": None if view is None else view["page"],
        "status": status,
        "version_date": None if view is None else view["version_date"],
        "effective_to": None if view is None else view["effective_to"],
        "excerpt": excerpt,
        "cell": cell,
        "checks": checks,
        "repairs": repairs,
        "warnings": [{"code": w, "words": words.warning_words(w)} for w in warnings],
    }


def _read(
    services: Services, receipt_id: str, first: Callable[[], object]
) -> tuple[object, dict[str, Any], set[Coordinates], dict[str, dict[str, int]]]:
    """Everything the page reads from the sync side, in one thread hop: ``first()`` (the
    session check), the verified receipt, the cited coordinates, engagement."""
    before = first()
    document = receipt_document(services.receipts.get(receipt_id))
    claims = document["claims"] + document["quarantined"]
    wanted: set[Coordinates] = {
        (b["span_id"], b["source_id"], b["version"])
        for claim in claims
        for b in claim["bindings"]
        if b.get("source_id") is not None
    }
    with services.read_side.db.reads.connect() as conn:
        counts = claim_counts(conn, [c["claim_id"] for c in claims])
    return before, document, wanted, counts


async def receipt_view(
    services: Services, receipt_id: str, first: Callable[[], object] = lambda: None
) -> tuple[object, dict[str, Any]]:
    """Everything the receipt page shows (``NotFound`` for an unknown receipt), and what
    ``first`` returned: it runs before anything is read, in the same thread hop (the page's
    session check, so a page costs one hop to the thread pool and the three async queries of
    ``binding_views``, table cells included)."""
    before, document, wanted, counts = await run_in_threadpool(_read, services, receipt_id, first)
    expired = document["status"]["status"] == "expired"
    claims = [(c, True) for c in document["claims"]] + [(c, False) for c in document["quarantined"]]
    async with services.read_side.async_engine.connect() as conn:
        views = await binding_views(conn, wanted, with_cells=True)
    claim_views = []
    for claim, committed in claims:
        citations = []
        for index, binding in enumerate(claim["bindings"]):
            key = (binding["span_id"], binding.get("source_id"), binding.get("version"))
            view = views.get(key)
            cell = None if view is None else view["cell"]
            citations.append(_citation(claim, index, binding, view, cell, expired))
        claim_views.append(
            {
                "claim_id": claim["claim_id"],
                "ordinal": claim["ordinal"],
                "text": claim["text"],
                "type": claim["type"],
                "material": claim["material"],
                "status": claim["status"],
                "status_words": words.status_words(claim["status"]),
                "committed": committed,
                "citations": citations,
                "repairs": claim.get("repairs", []),
                "engagement": counts.get(claim["claim_id"], {}),
            }
        )
    exclusions = Counter(item.get("reason_code", "") for item in document["excluded"])
    pool_sources = Counter((p["source_id"], p["version"]) for p in document["pool"])
    return before, {
        "receipt": document,
        "claims": claim_views,
        "exclusions": sorted(exclusions.items()),
        "pool_sources": sorted(pool_sources.items()),
        "expired": expired,
    }
