"""How receipt events stored under an older ``class_version`` read as today's. Stored events
are never rewritten: each ``upcast_vN_vN+1`` changes the state as it is read."""

from __future__ import annotations

from typing import Any


def upcast_opening(state: dict[str, Any]) -> None:
    """``upcast_v1_v2`` of ``Opened``: version 1 receipts were named by their content and
    carry no inference id or request fingerprint; they read as ``None``."""
    state.setdefault("inference_id", None)
    state.setdefault("request_fingerprint", None)


def upcast_idempotency(state: dict[str, Any]) -> None:
    """``upcast_v1_v2`` of the claim events: version 1 kept the HTTP status of the answer (201
    or 422) in its idempotency record, version 2 keeps whether the commit was accepted. Stored
    events are never rewritten; a version 1 record is read as version 2."""
    record = state.get("idempotency")
    if record is not None and "status" in record:
        record = dict(record)
        record["accepted"] = record.pop("status") == 201
        state["idempotency"] = record
