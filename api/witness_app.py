"""The witness over HTTP: C2SP tlog-witness ``POST /add-checkpoint``, plus a read endpoint.

``POST /add-checkpoint`` answers 200 with the cosignature line (``text/plain``); a refusal
answers with the status c2sp.org/tlog-witness names: 400 malformed (or an old size past the
checkpoint: a rollback), 403 not signed by the log, 404 unknown log, 409 with the witness's
size as ``text/x.tlog.size`` (old size mismatch, or a fork at the same size), 422 bad proof.

``GET /checkpoint?origin=<origin>`` is this project's extension: the newest checkpoint the
witness cosigned for that log, the log's note with the witness's cosignature line appended,
so an auditor can compare a log with it (``provledger verify --witness-url``).
"""

from __future__ import annotations

from typing import Annotated

import structlog
from fastapi import FastAPI, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, PlainTextResponse, Response

from api.errors import install_error_handlers, problem
from ledger.audit.witness import MAX_BODY_BYTES, Witness, WitnessRefusal
from ledger.errors import WitnessError

log = structlog.get_logger("provledger.witness")

STATUS_OF: dict[WitnessRefusal, int] = {
    WitnessRefusal.MALFORMED: 400,
    WitnessRefusal.ROLLBACK: 400,
    WitnessRefusal.NOT_SIGNED_BY_LOG: 403,
    WitnessRefusal.UNKNOWN_LOG: 404,
    WitnessRefusal.OLD_SIZE_MISMATCH: 409,
    WitnessRefusal.FORK: 409,
    WitnessRefusal.BAD_PROOF: 422,
}
TLOG_SIZE = "text/x.tlog.size"


def refusal_response(exc: WitnessError) -> Response:
    """The response for a refusal: a bare size for 409, problem+json otherwise."""
    status = STATUS_OF.get(WitnessRefusal(exc.reason), 400)
    if status == 409:
        return Response(f"{exc.size or 0}\n", status_code=409, media_type=TLOG_SIZE)
    return problem(status, "Checkpoint refused", exc.message, exc.reason.value.replace("_", "-"))


async def _read_body(request: Request) -> bytes | None:
    """The body, or None once it passes :data:`MAX_BODY_BYTES` (checked while streaming)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def create_witness_app(witness: Witness) -> FastAPI:
    """The witness's ASGI app around an opened :class:`~ledger.audit.witness.Witness`."""
    app = FastAPI(title="provledger witness", version="0.1.0")
    install_error_handlers(app)

    @app.post("/add-checkpoint")
    async def add_checkpoint(request: Request) -> Response:
        """Verify a checkpoint against the witness's state; cosign it if it extends it."""
        body = await _read_body(request)
        if body is None:
            return problem(
                413,
                "Body too large",
                f"add-checkpoint bodies are at most {MAX_BODY_BYTES} bytes",
                "payload-too-large",
            )
        try:
            line = await run_in_threadpool(witness.add_checkpoint, body)
        except WitnessError as exc:
            log.warning("checkpoint_refused", reason=exc.reason.value, detail=exc.message)
            return refusal_response(exc)
        log.info("checkpoint_cosigned", line=line.rstrip("\n"))
        return PlainTextResponse(line)

    @app.get("/checkpoint")
    def latest(
        origin: Annotated[str, Query(min_length=1, max_length=255, description="log origin")],
    ) -> Response:
        """The newest checkpoint this witness cosigned for ``origin``, with its cosignature."""
        try:
            return PlainTextResponse(witness.latest(origin))
        except WitnessError as exc:
            return problem(404, "Not found", exc.message, "not-found")

    @app.get("/healthz")
    def healthz() -> JSONResponse:
        """The witness is up."""
        return JSONResponse({"status": "ok", "name": witness.name})

    return app
