"""Response bodies of the API (request bodies live beside the routes that take them)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class Health(BaseModel):
    """Liveness or readiness."""

    status: str
    position: int | None = Field(default=None, description="highest notification id")


class Readiness(Health):
    """Readiness, with the witness's state when one is configured."""

    witness: dict[str, Any] | None = Field(
        default=None,
        description="the witness's state: pending, cosigned, unavailable or refused",
    )
    checks: dict[str, dict[str, Any]] | None = Field(
        default=None,
        description="every check by name: ok, and each projection's lag in events and seconds",
    )


class PublicKey(BaseModel):
    """One Ed25519 public key that verifies ledger events."""

    kid: str
    alg: str
    public_key: str = Field(description="raw 32-byte key, base64")
    status: str = Field(description="active (signs new events) or retired (verifies old ones)")
    created_at: str
    retired_at: str | None


class PublicKeys(BaseModel):
    """The keyring."""

    keys: list[PublicKey]


class StoredEventOut(BaseModel):
    """An event exactly as stored: its signed body and signature."""

    notification_id: int
    originator_id: str
    originator_version: int
    topic: str
    stored: dict[str, Any] = Field(description="{body, signature}: see docs/event-model.md")


class EventPage(BaseModel):
    """A page of the notification log."""

    events: list[StoredEventOut]
    next_after: int = Field(description="pass as ?after= to read the next page")
    last_position: int = Field(description="highest notification id in the log")
