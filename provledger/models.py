"""Typed views of the service's answers. Each model keeps members it does not name
(``extra="allow"``), so a newer service never breaks an older client; ``model_extra`` has them."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class Span(_Model):
    """A citeable span of one source version (a sentence, clause or table cell)."""

    span_id: str
    text: str | None = None
    start: int | None = None
    end: int | None = None
    source_id: str | None = None
    version: int | None = None
    heading_path: list[str] | None = None
    table_ref: dict[str, Any] | None = None
    envelope: str | None = None


class SourceVersion(_Model):
    """A registered source or an added version; ``created`` is False when the text was the
    same as before (nothing was written)."""

    source_id: str
    version: int
    version_hash: str
    span_count: int
    position: int
    created: bool
    spans: list[Span] = Field(default_factory=list)
    expired: dict[str, Any] | None = None
    """A new version: the receipts its supersession expired, ``{cause, items, next}`` (each
    item with its outcome and downstream actions; :meth:`provledger.Client.expired_by` pages
    on by ``cause``)."""


class Source(_Model):
    """A source and its versions."""

    source_id: str
    title: str | None = None
    authority: str | None = None
    status: str | None = None
    current_version: int | None = None
    versions: list[dict[str, Any]] = Field(default_factory=list)
    expired: dict[str, Any] | None = None
    """A withdrawal's answer: the receipts it expired, ``{cause, items, next}``."""


class Claim(_Model):
    """A claim as the gate judged it; ``ordinal`` is its place in its receipt's commit order."""

    claim_id: str
    ordinal: int | None = None
    text: str | None = None
    status: str | None = None
    type: str | None = None
    receipt_id: str | None = None
    bindings: list[dict[str, Any]] = Field(default_factory=list)
    checks: list[dict[str, Any]] = Field(default_factory=list)


class Transformation(_Model):
    """What the application did to evidence of a receipt's pool before the model saw it, as
    recorded once its output kept its loss boundary (``check``: what the check found)."""

    transformation_id: str
    method: str
    inputs: list[dict[str, Any]] = Field(default_factory=list)
    output: str = ""
    may_remove: list[str] = Field(default_factory=list)
    must_keep: list[str] = Field(default_factory=list)
    check: dict[str, Any] = Field(default_factory=dict)
    at: str | None = None
    receipt_id: str | None = None


class Receipt(_Model):
    """A context receipt: its sealed evidence pool, the transformations of it, and the claims
    committed under it."""

    receipt_id: str
    status: dict[str, Any] | str | None = None
    opened_at: str | None = None
    policy_version: str | None = None
    inference_id: str | None = None
    pool: list[dict[str, Any]] = Field(default_factory=list)
    transformations: list[Transformation] = Field(default_factory=list)
    claims: list[Claim] = Field(default_factory=list)
    quarantined: list[Claim] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _in_commit_order(cls, data: Any) -> Any:
        """``claims`` and ``quarantined`` in commit order (by ordinal), whatever order a
        service sent them in (one before this rule listed a repaired claim last)."""
        if not isinstance(data, dict):
            return data
        ordered = dict(data)
        for name in ("claims", "quarantined"):
            claims = ordered.get(name)
            if isinstance(claims, list) and all(_has_ordinal(claim) for claim in claims):
                ordered[name] = sorted(claims, key=lambda claim: claim["ordinal"])
        return ordered


class CommitResult(_Model):
    """What a claim commit committed (``committed``) and what the gate rejected
    (``rejected``; in ``independent`` mode also set aside for audit, ``quarantined``);
    ``replayed`` when the service answered a repeated ``Idempotency-Key`` with the first
    answer."""

    receipt_id: str
    mode: str
    committed: list[Claim] = Field(default_factory=list)
    quarantined: list[Claim] = Field(default_factory=list)
    rejected: list[Claim] = Field(default_factory=list)
    replayed: bool = False

    @model_validator(mode="before")
    @classmethod
    def _rejected_named(cls, data: Any) -> Any:
        """The rejected claims of an independent commit answered before the service named
        them in ``rejected`` (a replayed first answer) are taken from ``quarantined``."""
        if not isinstance(data, dict) or data.get("rejected"):
            return data
        quarantined = data.get("quarantined")
        if not isinstance(quarantined, list):
            return data
        refused = [c for c in quarantined if isinstance(c, dict) and c.get("status") == "rejected"]
        return {**data, "rejected": refused}


class Retrieval(_Model):
    """A recorded retrieval: its id (for :meth:`provledger.Client.open_receipt`), the ranked
    spans with their scores, and how many candidates were withheld, by code only."""

    retrieval_id: str
    as_of: str | None = None
    results: list[dict[str, Any]] = Field(default_factory=list)
    exclusions: list[dict[str, Any]] = Field(default_factory=list)
    rankers: list[dict[str, Any]] = Field(default_factory=list)


class Event(_Model):
    """One event of the log, exactly as stored and signed."""

    notification_id: int
    originator_id: str
    originator_version: int
    topic: str
    stored: dict[str, Any]


class Outcome(_Model):
    """A receipt's outcomes: the latest (``outcome``), every one oldest first, and every
    downstream action they named, with the receipt's status."""

    receipt_id: str
    status: dict[str, Any] | None = None
    outcome: dict[str, Any] | None = None
    outcomes: list[dict[str, Any]] = Field(default_factory=list)
    actions: list[dict[str, Any]] = Field(default_factory=list)


class AffectedReceipt(_Model):
    """A receipt a change touches, with its status, latest outcome and downstream actions
    (``reason``: the reason the change gave it, in a list of what one change expired)."""

    receipt_id: str
    status: str | None = None
    expiry_reason: str | None = None
    reason: str | None = None
    outcome: dict[str, Any] | None = None
    actions: list[dict[str, Any]] = Field(default_factory=list)


class VersionChange(_Model):
    """A retired model or tool version, or a context-assembly version declared in force, and
    what it expired (``expired``: the first 100; :meth:`provledger.Client.expired_by` pages
    through every one by its ``cause``)."""

    kind: str
    name: str
    version: str
    status: str
    position: int
    receipts_expired: int
    expired: dict[str, Any] = Field(default_factory=dict)


def _has_ordinal(claim: Any) -> bool:
    return isinstance(claim, dict) and isinstance(claim.get("ordinal"), int)


class Memory(_Model):
    """A memory item: its current version's fields, status and every version; a write's
    answer adds ``changed`` and ``receipts_expired`` (in ``model_extra``)."""

    memory_id: str
    status: str | None = None
    version: int | None = None
    purpose: str | None = None
    scope: dict[str, Any] | None = None
    source: list[dict[str, Any]] = Field(default_factory=list)
    text: str | None = None
    expires_at: str | None = None
    revoked_at: str | None = None
    versions: list[dict[str, Any]] = Field(default_factory=list)
