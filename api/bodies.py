"""Bodies and headers that more than one resource takes: a source's access attributes (in
and out), the principal evidence is asked for, what the context router decides on, and the
``Idempotency-Key`` header."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from ledger.access.attributes import Principal, SourceAccess
from ledger.errors import InvalidInput
from ledger.router import RouteRequest

Values = list[Annotated[str, Field(max_length=64)]]
_IDEMPOTENCY_KEY = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


class AccessIn(BaseModel):
    """A source's access attributes; every one optional (none: open to every principal)."""

    model_config = ConfigDict(extra="forbid")
    classification: str = Field(default="", max_length=64)
    units: Values = Field(default_factory=list, max_length=64)
    groups: Values = Field(default_factory=list, max_length=64)
    purposes: Values = Field(default_factory=list, max_length=64)
    jurisdictions: Values = Field(default_factory=list, max_length=64)

    def to_access(self, where: str = "access") -> SourceAccess:
        """The attributes as the ledger keeps them (values checked, sorted, unique; errors
        name fields under ``where``)."""
        return SourceAccess.parse(self.model_dump(), where)


class PrincipalIn(BaseModel):
    """On whose behalf evidence is asked for (bounded by the API key's pins): at receipt
    opening and at retrieval. Values are tokens of at most 64 characters, at most 64 a list
    (docs/access.md)."""

    model_config = ConfigDict(extra="forbid")
    roles: Values = Field(default_factory=list, max_length=64)
    units: Values = Field(default_factory=list, max_length=64)
    groups: Values = Field(default_factory=list, max_length=64)
    purpose: str = Field(max_length=64)
    destination: str = Field(default="", max_length=64)

    def to_principal(self) -> Principal:
        """The principal as the entitlement gate reads it (values checked, sorted, unique)."""
        return Principal.parse(self.model_dump())

    def as_stated(self) -> Principal:
        """The principal as the request states it (a retrieval records it so; its desk checks
        it as :meth:`to_principal` does before deciding on it)."""
        return Principal(
            tuple(self.roles), tuple(self.units), tuple(self.groups), self.purpose, self.destination
        )


class RouteIn(BaseModel):
    """What the router decides on (docs/router.md)."""

    model_config = ConfigDict(extra="forbid")
    task: Literal["lookup", "comparison", "question"]
    corpus_tokens: int = Field(
        strict=True, ge=0, le=10**12, description="tokens of the eligible corpus"
    )
    operating_length_tokens: int = Field(
        strict=True, ge=1, le=10**12, description="the length the task was tested to work at"
    )
    authoritative_source: bool = Field(
        strict=True, description="a source of record holds the facts"
    )
    entitlement: Literal["allowed", "partial", "denied"]
    temporal_conflict: bool = Field(default=False, strict=True)
    untrusted_instructions: bool = Field(default=False, strict=True)
    compression_drops_exception: bool = Field(default=False, strict=True)

    def to_request(self) -> RouteRequest:
        """The router's input."""
        return RouteRequest(**self.model_dump())


class AccessOut(BaseModel):
    """Access attributes as recorded."""

    classification: str
    units: list[str]
    groups: list[str]
    purposes: list[str]
    jurisdictions: list[str]


def checked_idempotency_key(value: str | None) -> str | None:
    """The ``Idempotency-Key`` header, 422 unless it matches ``[A-Za-z0-9._:-]{1,128}``."""
    if value is not None and not _IDEMPOTENCY_KEY.match(value):
        raise InvalidInput(
            "Idempotency-Key", "pattern", "Idempotency-Key must match [A-Za-z0-9._:-]{1,128}"
        )
    return value
