"""The transparency log page (latest checkpoint, cosignatures, an older checkpoint checked
for consistency) and the regulator's replay page (the ledger as of a date)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from starlette.responses import Response

from api.console.guard import check_csrf, check_origin, read_form
from api.console.state import ConsoleDep, SessionDep
from api.console.times import form_time
from ledger.crypto.checkpoint import parse_note
from ledger.errors import CheckpointError, InvalidInput
from ledger.eventlog.clock import format_time, parse_time
from projections.audit_read_desk import SignedCheckpoint

router = APIRouter()
COSIGNATURE_SIZE = 8 + 64
"""Bytes of a cosignature line's signature after its key hash: timestamp and signature."""
REPLAY_SOURCES = 200
"""Sources the replay page lists (the rest are named by the replay command's digest)."""
REPLAY_RECEIPTS = 200
"""Receipts the replay page lists, newest first."""


def _age(created_at: str) -> str:
    seconds = max(0, int((datetime.now(UTC) - parse_time(created_at)).total_seconds()))
    if seconds < 120:
        return f"{seconds} seconds"
    if seconds < 7200:
        return f"{seconds // 60} minutes"
    return f"{seconds // 3600} hours"


def cosigned_at(signature: bytes) -> int | None:
    """The Unix time a witness's cosignature carries (C2SP tlog-cosignature: 8 bytes,
    big-endian, before the 64-byte Ed25519 signature), None for another kind of signature.
    Shown only: the witness submitter verified the cosignature before keeping it."""
    if len(signature) != COSIGNATURE_SIZE:
        return None
    return int.from_bytes(signature[:8], "big")


def _shown(latest: SignedCheckpoint) -> dict[str, Any]:
    """The newest checkpoint as the page shows it: its signatures named, its age."""
    try:
        _, signatures = parse_note(latest.note)
    except CheckpointError:
        signatures = []
    origin = latest.origin
    return {
        "size": latest.size,
        "note": latest.note,
        "created_at": latest.created_at,
        "age": _age(latest.created_at),
        "signatures": [
            {
                "name": s.key_name,
                "key_hash": s.key_hash.hex(),
                "role": "the log's own key" if s.key_name == origin else "cosignature",
                "cosigned_at": None if s.key_name == origin else cosigned_at(s.signature),
            }
            for s in signatures
        ],
        "witness": latest.witness,
    }


@router.get("/transparency")
async def transparency_page(request: Request, console: ConsoleDep, session: SessionDep) -> Response:
    """The latest checkpoint, its signatures and cosignatures, tree size and age."""
    latest = await run_in_threadpool(console.services.audit_reads.newest_checkpoint)
    context = {"latest": _shown(latest), "pasted": "", "items": None, "reason": None}
    return console.render(request, "transparency.html", context, session=session)


@router.post("/transparency")
async def check_consistency(request: Request, console: ConsoleDep, session: SessionDep) -> Response:
    """Check a pasted older checkpoint against the latest with the log's consistency proof."""
    check_origin(request)
    form = await read_form(request)
    check_csrf(session.csrf, form.get("csrf"))
    pasted = form.get("checkpoint", "")
    if not pasted.strip():
        raise InvalidInput("checkpoint", "required", "paste a signed checkpoint note")
    checked = await run_in_threadpool(console.services.audit_reads.check_older_checkpoint, pasted)
    latest = _shown(checked.latest)
    context = {"latest": latest, "pasted": pasted, "items": checked.items, "reason": checked.reason}
    return console.render(request, "transparency.html", context, session=session)


@router.get("/replay")
async def replay_page(
    request: Request,
    console: ConsoleDep,
    session: SessionDep,
    at: Annotated[str | None, Query(max_length=64)] = None,
) -> Response:
    """Sources and receipts as the ledger knew them at ``at`` (a date reads as its end), with
    links to their PROV-JSON and the command that reproduces the replay's digest."""
    moment = form_time("at", at, end_of_day=True) if at else None
    context: dict[str, Any] = {"at": at or "", "moment": moment, "sources": [], "receipts": []}
    if moment is None:
        return console.render(request, "replay.html", context, session=session)
    replay = await console.services.replay.as_at(moment, REPLAY_SOURCES, REPLAY_RECEIPTS)
    context.update(
        sources=replay.sources,
        more_sources=replay.more_sources,
        receipts=replay.receipts,
        more_receipts=replay.more_receipts,
        now=format_time(datetime.now(UTC)),
        **replay.summary,
        whole_day=at is not None and len(at.strip()) == 10,
    )
    return console.render(request, "replay.html", context, session=session)
