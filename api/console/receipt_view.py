"""The receipt page's content: the verified receipt, its committed claims in the order they
were committed, its refused claims apart, and each citation assembled once with everything
its expansion shows (breadcrumb, excerpt, table cell, checks, repairs, warnings), so opening
a citation fetches nothing.

What it shows is read by ``ConsoleReadDesk`` (``projections/console_read_desk.py``): the
receipt and its claims from the receipt's verified events; its events again only when a
claim was refused or repaired, to date those and say why (:mod:`api.console.history`); the
cited spans rendered from the registry read model, exactly as ``GET /v1/claims/{id}`` does,
with the cited versions' dates for each claim's standing today
(:mod:`api.console.standing`).
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Any

from markupsafe import Markup

from api.console import words
from api.console.citations import breadcrumb, cell_position
from api.console.excerpt import pieces
from api.console.history import ClaimHistory, claim_histories
from api.console.standing import Standing, claim_standing
from projections.citation_queries import CitedVersion, Pair
from projections.claim_queries import Coordinates
from projections.console_read_desk import ReceiptPage


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


def receipt_view(read: ReceiptPage) -> dict[str, Any]:
    """Everything the receipt page shows, from what ``ConsoleReadDesk.receipt_page`` read."""
    document, views, cited = read.document, read.views, read.cited
    histories = claim_histories(read.events)

    def shown(claim: dict[str, Any], committed: bool) -> dict[str, Any]:
        history = histories.get(claim["claim_id"], ClaimHistory())
        engagement = read.counts.get(claim["claim_id"], {})
        return _claim(claim, document, views, cited, history, engagement, committed)

    exclusions = Counter(item.get("reason_code", "") for item in document["excluded"])
    pool_order = {entry["span_id"]: n for n, entry in enumerate(document["pool"], start=1)}
    pool_sources = Counter((p["source_id"], p["version"]) for p in document["pool"])
    return {
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


def standing_of(
    found: tuple[dict[str, Any], dict[str, Any], list[Any], dict[Pair, CitedVersion]] | None,
    claim_id: str,
) -> Standing | None:
    """The standing today of a committed claim (None when the claim was never committed),
    from what ``ConsoleReadDesk.claim_facts`` read: what the verification page shows beside
    the bundle's checks."""
    if found is None:
        return None
    document, claim, events, cited = found
    history = claim_histories(events).get(claim_id, ClaimHistory())
    return claim_standing(document, claim, cited, history.repaired_at)
