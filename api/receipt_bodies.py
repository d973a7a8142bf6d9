"""The request bodies of the receipt routes: an opening (the model, the context assembly,
exclusions), claims with their bindings, and an inference's prompt-cache usage."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, model_validator

from api.bodies import PrincipalIn, RouteIn
from api.deps import Rfc3339
from ledger.gate import Binding, ClaimDraft, ClaimType, Role
from ledger.receipts.transformations import TRANSFORMATION_PREFIX
from ledger.receipts.usage import MAX_TOKENS, Usage


class ModelIn(BaseModel):
    """The model that answered."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=200)
    version: str = Field(max_length=200)


class ContextAssemblyIn(BaseModel):
    """The code that selected, ordered and budgeted the context the model was shown."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=200)
    version: str = Field(max_length=200)


class ExcludedIn(BaseModel):
    """Evidence kept from the model, with a non-sensitive reason code only."""

    model_config = ConfigDict(extra="forbid")
    ref: str = Field(max_length=500)
    reason_code: str


class ReceiptIn(BaseModel):
    """``POST /v1/receipts``."""

    model_config = ConfigDict(extra="forbid")
    request: str = Field(description="the request the inference answered")
    actor: str = Field(description="on whose behalf (a user or agent id, not a secret)")
    purpose: str
    policy_version: str | None = Field(
        default=None,
        description="the access policy version the receipt is decided under: leave it out for "
        "the policy in force (the receipt records it); naming another version is 409, one "
        "never published 422 (docs/access.md)",
    )
    route: str = Field(
        default="",
        description="deprecated: a declared route (deterministic_state, hybrid_retrieval, "
        "long_context, ask_abstain_escalate, redesign); send routing instead",
    )
    routing: RouteIn | None = Field(
        default=None,
        description="the router's input: the ledger decides the route and records the "
        "decision with the receipt (docs/router.md)",
    )
    model: ModelIn
    tools: list[Annotated[str, Field(max_length=200)]] = Field(
        default_factory=list,
        max_length=100,
        description="the tools used, each name@version (a bare name records no version: it "
        "expires with any retired version of the tool, docs/receipts.md)",
    )
    context_assembly: ContextAssemblyIn | None = Field(
        default=None,
        description="the application's context assembly (name and version) that built what "
        "the model was shown; recorded, and the receipt expires when another version is "
        "declared in force (docs/receipts.md)",
    )
    evidence: list[str] = Field(
        default_factory=list, description="span ids the model was shown (the sealed pool)"
    )
    retrieval_id: str | None = Field(
        default=None,
        description=(
            "a retrieval of this caller (POST /v1/retrieve) whose spans are the sealed pool, "
            "in place of evidence"
        ),
    )
    excluded: list[ExcludedIn] = Field(default_factory=list, max_length=1000)
    as_of: Rfc3339 | None = Field(default=None, description="decision time; default now")
    expires_at: Rfc3339 | None = None
    budget: dict[str, Any] | None = None
    inference_id: str | None = Field(
        default=None,
        description=(
            "the client's id of this inference, unique per API key name ([A-Za-z0-9._:-]"
            "{1,128}); default: the ledger makes one"
        ),
    )
    principal: PrincipalIn | None = Field(
        default=None,
        description="on whose behalf; bounded by the API key's pins; its purpose is the "
        "receipt's (docs/access.md)",
    )
    candidates: list[str] = Field(
        default_factory=list,
        max_length=1000,
        description="spans a search surfaced; denied ones are recorded as safe exclusions",
    )
    memory: list[Annotated[str, Field(max_length=128)]] = Field(
        default_factory=list,
        max_length=100,
        description="memory item ids the model is shown beside the evidence, sealed into the "
        "pool under the same entitlement and time checks (docs/memory.md)",
    )


class BindingIn(BaseModel):
    """A claim's citation of one span, or of a transformation's output (judged against the
    spans the transformation consumed: docs/receipts.md#binding-a-transformations-output)."""

    model_config = ConfigDict(extra="forbid")
    span_id: str | None = Field(default=None, description="the span cited")
    transformation_id: str | None = Field(
        default=None,
        description="in place of span_id: a transformation of this receipt whose output the "
        "claim cites; the gate judges the claim against its input spans",
    )
    quote: str | None = None
    role: Literal["primary_support", "secondary_support", "context"] = "primary_support"

    @model_validator(mode="after")
    def _one_target(self) -> BindingIn:
        if (self.span_id is None) == (self.transformation_id is None):
            raise ValueError("a binding names a span_id or a transformation_id: one of them")
        if self.span_id is not None and self.span_id.startswith(TRANSFORMATION_PREFIX):
            raise ValueError("a transformation is cited by transformation_id, not span_id")
        return self

    @property
    def target(self) -> str:
        """The id the binding cites (a transformation's, ``tfm_...``, or a span's)."""
        return self.transformation_id if self.transformation_id is not None else str(self.span_id)


class ClaimIn(BaseModel):
    """One claim the model wrote."""

    model_config = ConfigDict(extra="forbid")
    client_ref: str | None = Field(default=None, max_length=128)
    text: str
    type: Literal["factual", "computational", "definition", "temporal", "quotation"] = "factual"
    material: bool = Field(default=True, strict=True)
    bindings: list[BindingIn] = Field(default_factory=list)

    def to_draft(self) -> ClaimDraft:
        """The claim as the ledger judges and keeps it (``ledger.receipts.claims``)."""
        return ClaimDraft(
            text=self.text,
            type=ClaimType(self.type),
            material=self.material,
            bindings=tuple(Binding(b.target, Role(b.role), b.quote) for b in self.bindings),
            client_ref=self.client_ref,
        )


class UsageIn(BaseModel):
    """One inference's prompt-cache usage, as the provider reported it (token counts)."""

    model_config = ConfigDict(extra="forbid")
    input_tokens: StrictInt = Field(ge=0, le=MAX_TOKENS, description="read at the input price")
    cache_creation_input_tokens: StrictInt = Field(
        default=0, ge=0, le=MAX_TOKENS, description="written to the prompt cache"
    )
    cache_read_input_tokens: StrictInt = Field(
        default=0, ge=0, le=MAX_TOKENS, description="read from the prompt cache"
    )

    def to_usage(self) -> Usage:
        """The counts as the ledger records them."""
        return Usage(
            self.input_tokens, self.cache_creation_input_tokens, self.cache_read_input_tokens
        )


class CommitIn(BaseModel):
    """``POST /v1/receipts/{receipt_id}/claims``."""

    model_config = ConfigDict(extra="forbid")
    mode: Literal["atomic", "independent"] = "atomic"
    claims: list[ClaimIn]
    rendered_answer: str | None = None
    repair: bool = Field(
        default=False,
        strict=True,
        description="try re-attribution within the sealed pool for claims that fail",
    )
    usage: UsageIn | None = Field(
        default=None,
        description="the inference's prompt-cache usage, recorded with the commit against the "
        "receipt's stable-prefix hash (docs/observability.md#prompt-cache)",
    )
