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

    items: list[StoredEventOut]
    next: str | None = Field(description="pass as ?after= for the next page; null on the last")
    events: list[StoredEventOut] = Field(description="deprecated: the same as items")
    next_after: int = Field(description="deprecated: the last id of the page (or after)")
    last_position: int = Field(description="highest notification id in the log")
