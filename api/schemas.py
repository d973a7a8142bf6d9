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

    items: list[StoredEventOut]
    next: str | None = Field(description="pass as ?after= for the next page; null on the last")
    events: list[StoredEventOut] = Field(description="deprecated: the same as items")
    next_after: int = Field(description="deprecated: the last id of the page (or after)")
    last_position: int = Field(description="highest notification id in the log")


# Registry -----------------------------------------------------------------------------------


class TableRef(BaseModel):
    """Where a cell span sits in its table."""

    table_id: str
    row: int
    col: int


class SpanOut(BaseModel):
    """A citeable span: a sentence, a clause or a table cell of one source version."""

    span_id: str
    start: int = Field(description="character offset in the frozen text")
    end: int
    text: str
    sent_index: int | None
    parent_span_id: str | None
    heading_path: list[str] | None
    paragraph: int | None
    page: int | None
    table_ref: TableRef | None
    envelope: str | None = Field(
        default=None, description="a cell's headers and labels with its value (cells only)"
    )


class AsOfOut(BaseModel):
    """The read coordinates a response was answered at."""

    known_at: str | None
    valid_at: str | None


class VersionSummary(BaseModel):
    """One version of a source: its hash, status and effective interval."""

    version: int
    version_hash: str
    status: str = Field(description="current, superseded or withdrawn")
    media_type: str
    title: str
    effective_from: str
    effective_to: str | None
    recorded_at: str
    superseded_at: str | None
    span_count: int
    segmenter: str | None
    position: int


class SourceOut(BaseModel):
    """A source with its versions (as of the read coordinates)."""

    source_id: str
    title: str
    authority: str
    uri: str | None
    metadata: dict[str, Any] | None
    registered_at: str
    status: str = Field(description="active or withdrawn")
    withdrawn_at: str | None
    withdraw_reason: str | None
    current_version: int | None
    versions: list[VersionSummary]
    as_of: AsOfOut | None = None
    in_force_version: int | None = None


class SpanDetail(SpanOut):
    """A span with its source, version and status."""

    source_id: str
    source_title: str
    authority: str
    version: int
    version_hash: str
    effective_from: str
    effective_to: str | None
    status: str
    in_force_at_valid_at: bool | None = None


class SpanContext(BaseModel):
    """A span and its neighbouring top-level sentences."""

    span: SpanOut
    source_id: str
    version: int
    window: int
    before: list[SpanOut]
    after: list[SpanOut]


# Receipts and claims --------------------------------------------------------------------------


class ReceiptStatus(BaseModel):
    """``open`` or ``expired``, with the first expiry's reason."""

    status: str
    reason: str | None
    at: str | None
    expiries: list[dict[str, Any]]


class CheckOut(BaseModel):
    """One gate check of a claim."""

    check: str
    outcome: str = Field(description="pass, fail, skip or warn")
    reason: str
    detail: str
    span_id: str | None = None


class ClaimOut(BaseModel):
    """A claim as the gate judged it, with its bindings and every check."""

    claim_id: str
    ordinal: int
    client_ref: str | None
    text: str
    type: str
    material: bool
    bindings: list[dict[str, Any]]
    status: str
    checks: list[CheckOut]


class ReceiptOut(BaseModel):
    """A context receipt: its sealed pool, committed and quarantined claims, status."""

    format: str
    receipt_id: str
    inference_id: str | None = Field(description="null for receipts opened before v2 ids")
    opened_by: str | None = Field(
        description="the API key's actor that opened it (`key:<name>`); null before v2"
    )
    request: str
    actor: str
    purpose: str
    policy_version: str
    route: str
    model: dict[str, Any]
    tools: list[str]
    budget: dict[str, Any] | None
    as_of: str | AsOfOut = Field(description="decision time; the read coordinates with known_at")
    expires_at: str | None
    opened_at: str
    pool: list[dict[str, Any]]
    excluded: list[dict[str, Any]]
    transformations: list[dict[str, Any]] | None = Field(
        default=None,
        description="present once the receipt recorded a transformation of its evidence: "
        "each as POST /v1/receipts/{receipt_id}/transformations answered it, less receipt_id",
    )
    claims: list[ClaimOut]
    quarantined: list[ClaimOut]
    status: ReceiptStatus
    context_assembly: dict[str, str] | None = Field(
        default=None, description="{name, version}; only when the opening gave it"
    )
    outcome: dict[str, Any] | None = Field(
        default=None,
        description="the latest outcome {decision, reviewer, actions, recorded_by, at}; only "
        "once one was recorded",
    )
    outcomes: list[dict[str, Any]] | None = Field(
        default=None, description="every outcome, oldest first; only once one was recorded"
    )
    actions: list[dict[str, Any]] | None = Field(
        default=None,
        description="every downstream action {action_id, kind, target, recorded_at} the "
        "outcomes named; only once an outcome was recorded",
    )


class CommitOut(BaseModel):
    """The outcome of a claim commit (a refusal is a ``claims-rejected`` problem)."""

    receipt_id: str
    mode: str
    committed: list[ClaimOut]
    quarantined: list[ClaimOut]
    rejected: list[ClaimOut]
    render_check: dict[str, Any] | None


class EnvelopeSignature(BaseModel):
    """One DSSE signature."""

    keyid: str
    sig: str


class Envelope(BaseModel):
    """A DSSE envelope over the receipt's canonical payload."""

    payload: str = Field(description="base64 of the RFC 8785 canonical receipt")
    payloadType: str
    signatures: list[EnvelopeSignature]


class EnvelopeCheck(BaseModel):
    """The checks of a receipt envelope, the same as ``provledger envelope verify``."""

    valid: bool
    reasons: list[str]
    signatures: list[dict[str, Any]]
    receipt_id: str | None
    status: dict[str, Any] | None


class ClaimView(BaseModel):
    """A committed claim rendered for a reader, with per-binding warnings."""

    claim_id: str
    receipt_id: str
    receipt_status: str
    repairs: list[dict[str, Any]]
    client_ref: str | None
    text: str
    type: str
    material: bool
    status: str
    committed: bool
    checks: list[CheckOut]
    bindings: list[dict[str, Any]]
    warnings: list[str]


class RepairOut(BaseModel):
    """A repair's record and the claim after it."""

    receipt_id: str
    repair: dict[str, Any]
    claim: dict[str, Any]


class LocatedSentence(BaseModel):
    """One answer sentence and the span that best supports it, if any."""

    sentence: str
    start: int
    end: int
    markers: list[str]
    span_id: str | None
    score: float | None
    confidence: float | None
    source_id: str | None
    version: int | None


class LocateOut(BaseModel):
    """``POST /v1/locate``'s answer."""

    threshold: float
    confidence: float
    sentences: list[LocatedSentence]


class InclusionProof(BaseModel):
    """RFC 9162 inclusion proof of one leaf."""

    index: int
    size: int
    notification_id: int
    leaf_hash: str
    proof: list[str]
    root: str


class ConsistencyProof(BaseModel):
    """RFC 9162 consistency proof between two tree sizes."""

    first: int
    second: int
    proof: list[str]
    first_root: str
    second_root: str


class Bundle(BaseModel):
    """A citation-chain bundle: everything an auditor needs to verify one claim offline."""

    format: str
    origin: str
    claim: dict[str, Any]
    receipt_id: str
    spans: list[dict[str, Any]]
    sources: list[dict[str, Any]]
    envelope: Envelope
    events: list[dict[str, Any]]
    proofs: list[dict[str, Any]]
    checkpoint: str
    checkpoint_size: int
    consistency: dict[str, Any] | None
    keys: list[PublicKey]
