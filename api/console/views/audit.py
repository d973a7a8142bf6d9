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
from api.services import Services
from ledger.audit.older_checkpoint import check_older_checkpoint
from ledger.crypto.checkpoint import parse_note
from ledger.errors import CheckpointError, InvalidInput, NotFound
from ledger.eventlog.clock import format_time, parse_time
from projections import registry_queries as rq
from projections import transparency_queries as tq
from projections.receipt_queries import ReceiptFilter, receipts_as_at
from projections.replay_queries import replay_summary

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


def _latest(services: Services) -> dict[str, Any]:
    """The newest checkpoint with the witness's cosignature line, when it has one."""
    services.read_side.transparency.catch_up()
    with services.read_side.db.reads.connect() as conn:
        row = tq.newest_checkpoint(conn)
    if row is None:
        raise NotFound("the transparency log has no checkpoint yet")
    note = str(row["note"])
    submitter = services.witness
    if submitter is not None:
        note += submitter.cosignature_for(int(row["size"]), bytes(row["root"])) or ""
    try:
        _, signatures = parse_note(note)
    except CheckpointError:
        signatures = []
    origin = services.read_side.origin
    return {
        "size": int(row["size"]),
        "note": note,
        "created_at": row["created_at"],
        "age": _age(str(row["created_at"])),
        "signatures": [
            {
                "name": s.key_name,
                "key_hash": s.key_hash.hex(),
                "role": "the log's own key" if s.key_name == origin else "cosignature",
                "cosigned_at": None if s.key_name == origin else cosigned_at(s.signature),
            }
            for s in signatures
        ],
        "witness": None if submitter is None else submitter.status.state,
    }


@router.get("/transparency")
async def transparency_page(request: Request, console: ConsoleDep, session: SessionDep) -> Response:
    """The latest checkpoint, its signatures and cosignatures, tree size and age."""
    latest = await run_in_threadpool(_latest, console.services)
    context = {"latest": latest, "pasted": "", "items": None, "reason": None}
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
    services = console.services
    keyring = services.runtime.keystore.load_keyring()

    def run() -> tuple[dict[str, Any], Any, str | None]:
        latest = _latest(services)

        def proof(first: int, second: int) -> dict[str, Any]:
            with services.read_side.db.reads.connect() as conn:
                return tq.consistency(conn, first, second)

        items, reason = check_older_checkpoint(
            pasted, latest["note"], services.read_side.origin, keyring, proof
        )
        return latest, items, reason

    latest, items, reason = await run_in_threadpool(run)
    context = {"latest": latest, "pasted": pasted, "items": items, "reason": reason}
    return console.render(request, "transparency.html", context, session=session)


def _replay(services: Services, at: str) -> dict[str, Any]:
    """What the replay page lists and counts at ``at`` (``projections/replay_queries.py``)."""
    services.read_side.catch_up()
    with services.read_side.db.reads.connect() as conn:
        return replay_summary(conn, at, REPLAY_SOURCES)


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
    services = console.services
    found = await run_in_threadpool(_replay, services, moment)
    as_of = rq.AsOf(known_at=moment, valid_at=moment)
    shown = []
    async with services.read_side.async_engine.connect() as conn:
        for source_id in found["source_ids"][:REPLAY_SOURCES]:
            shown.append(await rq.get_source(conn, source_id, as_of))
        receipts, more = await receipts_as_at(
            conn, ReceiptFilter(opened_before=moment), moment, limit=REPLAY_RECEIPTS
        )
    await run_in_threadpool(services.read_side.served_receipts.check_receipts_at, receipts, moment)
    context.update(
        sources=shown,
        more_sources=len(found["source_ids"]) > REPLAY_SOURCES,
        receipts=receipts,
        more_receipts=more is not None,
        now=format_time(datetime.now(UTC)),
        first_record=found["first_record"],
        recorded_later=found["recorded_later"],
        first_recorded_later=found["first_recorded_later"],
        decided_later=found["decided_later"],
        first_decided_later=found["first_decided_later"],
        whole_day=at is not None and len(at.strip()) == 10,
    )
    return console.render(request, "replay.html", context, session=session)
