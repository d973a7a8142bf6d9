"""Receipts: the filtered list, one receipt with its citations, its downloads, and the
server-side verification of a claim's bundle."""

from __future__ import annotations

from functools import partial
from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from starlette.responses import Response

from api.console import words
from api.console.guard import check_csrf, check_origin, read_form
from api.console.receipt_view import receipt_view, standing_of
from api.console.state import ConsoleDep, SessionDep, download, signed_in
from api.console.times import form_time
from api.deps import MAX_INT
from projections.receipt_queries import ReceiptFilter

router = APIRouter()
Text = Annotated[str | None, Query(max_length=500)]


def _blank(value: str | None) -> str | None:
    return value.strip() or None if value is not None else None


@router.get("/receipts")
async def receipts_page(
    request: Request,
    console: ConsoleDep,
    session: SessionDep,
    actor: Text = None,
    purpose: Text = None,
    policy: Text = None,
    status: Annotated[str | None, Query(pattern="^(|open|expired)$")] = None,
    opened_from: Annotated[str | None, Query(alias="from", max_length=64)] = None,
    opened_to: Annotated[str | None, Query(alias="to", max_length=64)] = None,
    before: Annotated[int | None, Query(ge=1, le=MAX_INT)] = None,
) -> Response:
    """Receipts, newest first, 50 a page, filtered by actor, purpose, policy version, status
    and opening time; ``before`` is the cursor of the next page."""
    wanted = ReceiptFilter(
        actor=_blank(actor),
        purpose=_blank(purpose),
        policy_version=_blank(policy),
        status=_blank(status),
        opened_from=form_time("from", opened_from),
        opened_before=form_time("to", opened_to, end_of_day=True),
    )
    rows, next_cursor = await console.services.receipt_reads.receipts_as_at(wanted, before)
    next_href = None
    if next_cursor is not None:
        query = {k: v for k, v in request.query_params.items() if k != "before" and v}
        query["before"] = str(next_cursor)
        next_href = f"{request.url.path}?{urlencode(query)}"
    context = {
        "rows": rows,
        "filters": wanted,
        "raw_from": opened_from,
        "raw_to": opened_to,
        "next_href": next_href,
    }
    return console.render(request, "receipts.html", context, session=session)


@router.get("/receipts/{receipt_id}")
async def receipt_page(receipt_id: str, request: Request, console: ConsoleDep) -> Response:
    """One receipt: context, sealed pool, exclusions, claims and their citations (the session
    is checked in the same thread hop as the receipt is read: see
    ``ConsoleReadDesk.receipt_page``)."""
    session, read = await console.services.console_reads.receipt_page(
        receipt_id, partial(signed_in, console, request)
    )
    origin = f"{request.url.scheme}://{request.url.netloc}"
    context = {**receipt_view(read), "origin": origin}
    return console.render(request, "receipt.html", context, session=session)


@router.get("/receipts/{receipt_id}/envelope.json")
async def envelope_download(receipt_id: str, console: ConsoleDep, _: SessionDep) -> Response:
    """The receipt's DSSE envelope (as ``GET /v1/receipts/{id}/envelope``), as a download."""
    envelope = await run_in_threadpool(console.services.receipt_reads.envelope, receipt_id, None)
    return download(envelope, f"{receipt_id}.envelope.json")


@router.get("/receipts/{receipt_id}/provenance.json")
async def provenance_download(receipt_id: str, console: ConsoleDep, _: SessionDep) -> Response:
    """The receipt's PROV-JSON (as ``GET /v1/receipts/{id}/provenance``), as a download."""
    export = await run_in_threadpool(console.services.provenance.receipt, receipt_id)
    return download(export.document, f"{receipt_id}.prov.json")


@router.get("/claims/{claim_id}/bundle.json")
async def bundle_download(claim_id: str, console: ConsoleDep, _: SessionDep) -> Response:
    """The claim's citation-chain bundle (as ``GET /v1/claims/{id}/bundle``), as a download."""
    bundle = await run_in_threadpool(console.services.audit_reads.bundle, claim_id)
    return download(bundle, f"{claim_id}.bundle.json")


@router.post("/claims/{claim_id}/verify")
async def verify_claim(
    claim_id: str, request: Request, console: ConsoleDep, session: SessionDep
) -> Response:
    """Build the claim's bundle and run ``provledger audit verify``'s checks on it (the same
    function) against the published keys and the latest checkpoint; show each check."""
    check_origin(request)
    form = await read_form(request)
    check_csrf(session.csrf, form.get("csrf"))
    services = console.services
    bundle, checklist = await run_in_threadpool(services.audit_reads.checked_bundle, claim_id)
    found = await services.console_reads.claim_facts(bundle["receipt_id"], claim_id)
    standing = standing_of(found, claim_id)
    origin = f"{request.url.scheme}://{request.url.netloc}"
    failed = next((text for ok, text in checklist.items if not ok), None)
    context = {
        "standing": standing,
        "failed": failed,
        "claim_id": claim_id,
        "receipt_id": bundle["receipt_id"],
        "checkpoint_size": bundle["checkpoint_size"],
        "items": checklist.items,
        "ok": checklist.ok,
        "reason": None if checklist.reason is None else checklist.reason.value,
        "origin": origin,
        "claim_text": bundle["claim"]["text"],
        "status_words": words.status_words(bundle["claim"]["status"]),
    }
    return console.render(request, "verify.html", context, session=session)
