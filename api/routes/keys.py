"""The public keys that verify the ledger's signatures (no authentication)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from api.deps import RuntimeDep
from api.schemas import PublicKeys

router = APIRouter(tags=["keys"])


@router.get("/v1/keys", response_model=PublicKeys)
def public_keys(runtime: RuntimeDep) -> dict[str, Any]:
    """Every Ed25519 public key, active and retired, with its key id.

    Read from the keyring file on each call, so a rotation made by the command line shows
    here at once.
    """
    return runtime.keystore.load_keyring().to_json()
