"""The public keys that verify the ledger's signatures (no authentication)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from api.deps import KeyringDeskDep
from api.schemas import PublicKeys

router = APIRouter(tags=["keys"])


@router.get("/v1/keys", response_model=PublicKeys)
def public_keys(desk: KeyringDeskDep) -> dict[str, Any]:
    """Every Ed25519 public key, active and retired, with its key id.

    Read from the keyring file on each call, so a rotation made by the command line shows
    here at once.
    """
    return desk.public_keys()
