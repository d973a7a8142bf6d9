"""The receipt page's content: the verified receipt, its committed claims in the order they
were committed, its refused claims apart, and each citation assembled once with everything
its expansion shows (breadcrumb, excerpt, table cell, checks, repairs, warnings), so opening
a citation fetches nothing.

The receipt and its claims come from the receipt's verified events (the receipt desk); its
events are read again only when a claim was refused or repaired, to date those and say why
(:mod:`api.console.history`). The registry read model renders the cited spans, exactly as
``GET /v1/claims/{id}`` does, and gives the cited versions' dates for each claim's standing
today (:mod:`api.console.standing`).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from fastapi.concurrency import run_in_threadpool
from markupsafe import Markup

from api.console import words
from api.console.citations import breadcrumb, cell_position
from api.console.excerpt import pieces
from api.console.history import ClaimHistory, claim_histories, needs_history
from api.console.standing import Standing, claim_standing
from api.services import Services
from ledger.receipts.document import receipt_document
from ledger.receipts.receipt_ids import receipt_aggregate_id
from projections.citation_queries import CitedVersion, Pair, cited_versions
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
    cited: CitedVersion | None,
) -> dict[str, Any]:
    """One citation of ``claim`` with what its expansion shows (the receipt's expiry is
    said once, on the receipt, not in each citation)."""
    warnings: list[str] = []
    status = None if view is None else view["status"]
    if status in ("superseded", "withdrawn"):
        warnings.append(status)
    if view is None and binding.get("source_id"):
        warnings.append("span_not_in_pool")
    checks = checks_html(
        [c for c in claim.get("checks", []) if c.get("span_id") in (None, binding["span_id"])]
    )
    repairs = [r for r in claim.get("repairs", []) if r.get("binding_index") == index]
    excerpt = []
    cell = None
    if view is not None:
        excerpt = pieces(
            view["excerpt"], tuple(view["highlight"]), claim["text"], binding.get("quote")
        )
        found = view.get("cell")
        if found is not None:
            cell = cell_position(
                () if cited is None else cited.tables,
                found["table_id"],
                found["row"],
                found["col"],
                found["envelope"],
                view["text"],
            )
    return {
        "n": index + 1,
        "span_id": binding["span_id"],
        "role": binding["role"],
        "quote": binding.get("quote"),
        "source_id": binding.get("source_id"),
        "version": binding.get("version"),
        "title": None if view is None else view["title"],
        "breadcrumb": [] if view is None else breadcrumb(view["title"], view["heading_path"]),
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
) -> tuple[object, dict[str, Any], dict[str, ClaimHistory], dict[str, dict[str, int]]]:
    """Everything the page reads from the sync side, in one thread hop: ``first()`` (the
    session check), the verified receipt, its claims' histories when it needs them, and
    engagement."""
    before = first()
    document, events = _document(services, receipt_id)
    histories = claim_histories(events)
    claims = document["claims"] + document["quarantined"]
    with services.read_side.db.reads.connect() as conn:
        counts = claim_counts(conn, [c["claim_id"] for c in claims])
    return before, document, histories, counts


async def citation_facts(
    services: Services, claims: list[dict[str, Any]]
) -> tuple[dict[Coordinates, dict[str, Any]], dict[Pair, CitedVersion]]:
    """The rendered span of every binding of ``claims`` (table cells included) and the
    registry's facts on every cited version: the three queries of ``binding_views`` and one
    or two more, however many claims."""
    wanted: set[Coordinates] = {
        (b["span_id"], b["source_id"], b["version"])
        for claim in claims
        for b in claim["bindings"]
        if b.get("source_id") is not None
    }
    async with services.read_side.async_engine.connect() as conn:
        views = await binding_views(conn, wanted, with_cells=True)
        cells = {(v["source_id"], v["version"]) for v in views.values() if v.get("cell")}
        cited = await cited_versions(conn, {(s, v) for _, s, v in wanted}, cells)

    def check() -> None:  # nothing the read model renders is shown unless the events hold it
        served = services.read_side.served
        served.check_views(list(views.values()))
        served.check_cited([dataclasses.asdict(version) for version in cited.values()])

    await run_in_threadpool(check)
    return views, cited


def _claim(
    claim: dict[str, Any],
    document: dict[str, Any],
    views: dict[Coordinates, dict[str, Any]],
    cited: dict[Pair, CitedVersion],
    history: ClaimHistory,
    engagement: dict[str, int],
    committed: bool,
) -> dict[str, Any]:
    citations = []
    for index, binding in enumerate(claim["bindings"]):
        source_id, version = binding.get("source_id"), binding.get("version")
        view = views.get((binding["span_id"], source_id, version))
        facts = None if source_id is None else cited.get((source_id, version))
        citations.append(_citation(claim, index, binding, view, facts))
    refusal = None
    if not committed:
        refusal = history.refusal or ("rejected" if claim["status"] == "rejected" else "batch")
    return {
        "claim_id": claim["claim_id"],
        "n": claim["ordinal"] + 1,
        "text": claim["text"],
        "type": claim["type"],
        "material": claim["material"],
        "status": claim["status"],
        "status_words": words.status_words(claim["status"]),
        "committed": committed,
        "committed_by_repair": history.committed_by_repair,
        "committed_at": history.committed_at,
        "refusal": refusal,
        "refusal_words": None if refusal is None else words.refusal_words(refusal),
        "refused_at": history.refused_at,
        "standing": (
            claim_standing(document, claim, cited, history.repaired_at) if committed else None
        ),
        "citations": citations,
        "repairs": claim.get("repairs", []),
        "engagement": engagement,
    }


async def receipt_view(
    services: Services, receipt_id: str, first: Callable[[], object] = lambda: None
) -> tuple[object, dict[str, Any]]:
    """Everything the receipt page shows (``NotFound`` for an unknown receipt), and what
    ``first`` returned: it runs before anything is read, in the same thread hop (the page's
    session check, so a page costs one hop to the thread pool and the async queries of
    :func:`citation_facts`)."""
    before, document, histories, counts = await run_in_threadpool(
        _read, services, receipt_id, first
    )
    views, cited = await citation_facts(services, document["claims"] + document["quarantined"])

    def shown(claim: dict[str, Any], committed: bool) -> dict[str, Any]:
        history = histories.get(claim["claim_id"], ClaimHistory())
        engagement = counts.get(claim["claim_id"], {})
        return _claim(claim, document, views, cited, history, engagement, committed)

    exclusions = Counter(item.get("reason_code", "") for item in document["excluded"])
    pool_order = {entry["span_id"]: n for n, entry in enumerate(document["pool"], start=1)}
    pool_sources = Counter((p["source_id"], p["version"]) for p in document["pool"])
    return before, {
        "receipt": document,
        "claims": [shown(claim, True) for claim in document["claims"]],
        "refused": [shown(claim, False) for claim in document["quarantined"]],
        "exclusions": sorted(exclusions.items()),
        "pool_sources": sorted(pool_sources.items()),
        "transformations": [
            _transformation(n, t, pool_order)
            for n, t in enumerate(document.get("transformations", []), start=1)
        ],
        "expired": document["status"]["status"] == "expired",
    }


def _transformation(n: int, recorded: dict[str, Any], pool: dict[str, int]) -> dict[str, Any]:
    """One transformation as the page shows it: what it did, its inputs (each with its place
    in the sealed pool), its loss boundary in words, what the check found, and its output."""
    check = recorded["check"]
    return {
        "n": n,
        "transformation_id": recorded["transformation_id"],
        "method": recorded["method"],
        "method_words": words.method_words(recorded["method"]),
        "inputs": [{**item, "n": pool.get(item["span_id"])} for item in recorded["inputs"]],
        "may_remove": [(item, words.may_remove_words(item)) for item in recorded["may_remove"]],
        "must_keep": [
            (item, words.must_keep_words(item), check["items"].get(item, {}))
            for item in recorded["must_keep"]
        ],
        "checker": check["checker"],
        "released": [
            {**item, "words": words.may_remove_words(item["released_by"])}
            for item in check["released"]
        ],
        "output": recorded["output"],
        "at": recorded["at"],
    }


def _document(services: Services, receipt_id: str) -> tuple[dict[str, Any], list[Any]]:
    document = receipt_document(services.receipts.get(receipt_id))
    events: list[Any] = []
    if needs_history(document):
        events = list(services.ledger.events.get(receipt_aggregate_id(receipt_id)))
    return document, events


async def standing_of(services: Services, receipt_id: str, claim_id: str) -> Standing | None:
    """The standing today of a committed claim of the receipt (None when the claim was never
    committed): what the verification page shows beside the bundle's checks."""
    document, events = await run_in_threadpool(_document, services, receipt_id)
    claim = next((c for c in document["claims"] if c["claim_id"] == claim_id), None)
    if claim is None:
        return None
    _, cited = await citation_facts(services, [claim])
    history = claim_histories(events).get(claim_id, ClaimHistory())
    return claim_standing(document, claim, cited, history.repaired_at)
