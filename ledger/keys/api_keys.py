"""API keys as ledger facts: issued and revoked by signed events, stored only as hashes.

A secret looks like ``plk.<name>.<43 url-safe base64 characters>``: the name lets the ledger
find the key's aggregate without an index, the random part carries 256 bits. Because the
secret is high-entropy, a single SHA-256 is a sound verifier (no password stretching needed);
the comparison is constant-time.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate

from ledger.access.attributes import Pins
from ledger.errors import Conflict, InvalidInput
from ledger.eventlog.aggregate import LedgerAggregate
from ledger.eventlog.topics import aggregate_topic

SECRET_PREFIX = "plk"  # noqa: S105 - a public marker, not a secret
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_TOKEN_PATTERN = re.compile(r"^[A-Za-z0-9_-]{43}$")
_NAMESPACE = uuid5(NAMESPACE_URL, "https://provledger.dev/ns/api-key")


class Scope(StrEnum):
    """What a key may do. ``admin`` implies every other scope."""

    READ = "read"
    INGEST = "ingest"
    CLAIMS_WRITE = "claims:write"
    RETRIEVE = "retrieve"
    AUDIT_READ = "audit:read"
    METRICS = "metrics"
    ADMIN = "admin"


def parse_scopes(values: Iterable[str]) -> list[str]:
    """Validate and de-duplicate scope names, keeping a stable order."""
    known = {scope.value for scope in Scope}
    result: list[str] = []
    for raw in values:
        value = raw.strip()
        if value not in known:
            raise InvalidInput(
                "scopes", "known-scope", f"unknown scope {value!r}; known: {sorted(known)}"
            )
        if value not in result:
            result.append(value)
    if not result:
        raise InvalidInput("scopes", "non-empty", "a key needs at least one scope")
    return result


UNPINNABLE = frozenset({"audit:read", "admin"})
"""Scopes a key with pins may not hold: they read the whole log (``/v1/events``, bundles,
provenance exports, protected access records, the console), which pins cannot bound."""


def check_pinnable(scopes: Iterable[str], pins: Pins | None) -> None:
    """Refuse pins on a key that would hold ``audit:read`` or ``admin`` (422 ``pins`` /
    ``pinnable-scope``): what those scopes read cannot be bounded by pins."""
    refused = sorted(UNPINNABLE & set(scopes))
    if pins is not None and refused:
        raise InvalidInput(
            "pins",
            "pinnable-scope",
            f"a key with scope {refused[0]!r} reads the whole log, which pins cannot bound: "
            "issue it without pins, or without that scope",
        )


def granted_scopes(scopes: Iterable[str], pins: Pins | None) -> frozenset[str]:
    """The scopes a key acts with: a key with pins never acts with ``audit:read`` or
    ``admin``, even if an older issue event gave it one (:func:`check_pinnable`)."""
    held = frozenset(scopes)
    return held if pins is None else held - UNPINNABLE


def check_name(name: str) -> str:
    """Validate a key name."""
    if not NAME_PATTERN.match(name):
        raise InvalidInput(
            "name", "pattern", f"key name must match {NAME_PATTERN.pattern} (got {name!r})"
        )
    return name


@functools.lru_cache(maxsize=4096)
def key_aggregate_id(name: str) -> UUID:
    """The aggregate id of the key called ``name`` (remembered: every request derives it)."""
    return uuid5(_NAMESPACE, name)


def hash_secret(secret: str) -> str:
    """The stored verifier of a secret: ``sha256:<hex>``."""
    return "sha256:" + hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_secret(name: str) -> str:
    """Generate a fresh secret for the key ``name``."""
    return f"{SECRET_PREFIX}.{name}.{secrets.token_urlsafe(32)}"


def name_in_secret(secret: str) -> str | None:
    """Extract the key name from a well-formed secret, or None."""
    prefix, _, rest = secret.partition(".")
    name, _, token = rest.rpartition(".")
    if prefix != SECRET_PREFIX or not NAME_PATTERN.match(name) or not _TOKEN_PATTERN.match(token):
        return None
    return name


@dataclass(frozen=True)
class Caller:
    """An authenticated caller, with the principal attributes its key pins (None: none)."""

    name: str
    scopes: frozenset[str]
    pins: Pins | None = None

    @property
    def actor(self) -> str:
        """How this caller is named in signed events."""
        return f"key:{self.name}"

    def allows(self, scope: str) -> bool:
        """Tell whether this caller holds ``scope`` (``admin`` holds all)."""
        return Scope.ADMIN.value in self.scopes or scope in self.scopes


def upcast_pins(state: dict[str, Any]) -> None:
    """``upcast_v1_v2`` of ``issued`` and ``reissued``: version 1 keys pinned no principal
    attributes."""
    state.setdefault("pins", None)


@aggregate_topic("provledger.api_key")
class ApiKey(LedgerAggregate):
    """One named API key across its issuances and revocations."""

    class Issued(Aggregate.Created, LedgerAggregate.Event):
        """A key named ``name`` was issued with ``scopes``; only its hash is kept."""

        TOPIC = "provledger.api_key.issued"
        class_version = 2
        name: str
        scopes: list[str]
        key_hash: str
        pins: dict[str, list[str]] | None

        upcast_v1_v2 = staticmethod(upcast_pins)

    class Reissued(LedgerAggregate.Event):
        """A revoked name was issued again, with a new secret and scopes."""

        TOPIC = "provledger.api_key.reissued"
        class_version = 2
        scopes: list[str]
        key_hash: str
        pins: dict[str, list[str]] | None

        upcast_v1_v2 = staticmethod(upcast_pins)

        def apply(self, aggregate: ApiKey) -> None:
            aggregate.scopes = list(self.scopes)
            aggregate.key_hash = self.key_hash
            aggregate.pins = Pins.from_event(self.pins)
            aggregate.revoked = False

    class Revoked(LedgerAggregate.Event):
        """The key can no longer authenticate."""

        TOPIC = "provledger.api_key.revoked"
        reason: str

        def apply(self, aggregate: ApiKey) -> None:
            aggregate.revoked = True

    def __init__(
        self,
        name: str,
        scopes: list[str],
        key_hash: str,
        pins: dict[str, list[str]] | None = None,
    ) -> None:
        self.name = name
        self.scopes = list(scopes)
        self.key_hash = key_hash
        self.pins = Pins.from_event(pins)
        self.revoked = False

    @classmethod
    def issue(
        cls, name: str, scopes: list[str], key_hash: str, actor: str, pins: Pins | None = None
    ) -> ApiKey:
        """Issue the first key with this name (pinning principal attributes, if given)."""
        return cls._create(
            cls.Issued,
            id=key_aggregate_id(name),
            name=name,
            scopes=scopes,
            key_hash=key_hash,
            pins=None if pins is None else pins.to_json(),
            actor=actor,
        )

    def reissue(
        self, scopes: list[str], key_hash: str, actor: str, pins: Pins | None = None
    ) -> None:
        """Issue a new secret under a name whose previous key was revoked."""
        if not self.revoked:
            raise Conflict(f"key {self.name!r} is active; revoke it before issuing it again")
        self.trigger_event(
            self.Reissued,
            scopes=scopes,
            key_hash=key_hash,
            pins=None if pins is None else pins.to_json(),
            actor=actor,
        )

    def revoke(self, reason: str, actor: str) -> None:
        """Revoke the key."""
        if self.revoked:
            raise Conflict(f"key {self.name!r} is already revoked")
        self.trigger_event(self.Revoked, reason=reason, actor=actor)

    def matches(self, secret: str) -> bool:
        """Constant-time check of ``secret`` against the stored hash."""
        return hmac.compare_digest(hash_secret(secret), self.key_hash)
