"""Check a receipt envelope (the same checks as ``provledger envelope verify``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends

from api.deps import KeyringDeskDep, require
from api.openapi import answers
from api.schemas import EnvelopeCheck
from ledger.keys.api_keys import Caller, Scope

router = APIRouter(tags=["envelopes"])
Auditor = Annotated[Caller, Depends(require(Scope.AUDIT_READ))]


@router.post("/v1/envelopes/verify", response_model=None, responses=answers(EnvelopeCheck))
def verify(
    envelope: Annotated[dict[str, Any], Body(description="a DSSE receipt envelope")],
    desk: KeyringDeskDep,
    _: Auditor,
) -> dict[str, Any]:
    """``{valid, reasons, signatures, receipt_id, status}`` for a receipt envelope."""
    return desk.verify_envelope(envelope)
