"""The commit gate's vocabulary: claims, their bindings, the facts about bound spans, verdicts.

Every value here is a frozen dataclass or a string enum, so a verdict can be compared, hashed and
written into a receipt as JSON (:meth:`CheckResult.to_json`, :meth:`Verdict.to_json`) without
conversion code elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Outcome(StrEnum):
    """What one check concluded: it passed, it failed, or it had nothing to decide."""

    PASS = "pass"  # noqa: S105 - an outcome, not a password
    FAIL = "fail"
    SKIP = "skip"


class ClaimType(StrEnum):
    """What kind of statement a claim makes; ``computational`` claims are recomputed."""

    FACTUAL = "factual"
    COMPUTATIONAL = "computational"
    DEFINITION = "definition"
    TEMPORAL = "temporal"
    QUOTATION = "quotation"


class Role(StrEnum):
    """How a bound span relates to its claim; only the two support roles count as evidence."""

    PRIMARY = "primary_support"
    SECONDARY = "secondary_support"
    CONTEXT = "context"


SUPPORT_ROLES = frozenset({Role.PRIMARY, Role.SECONDARY})
"""The roles whose spans the content checks (anchors, polarity, computation, support) read."""


class Status(StrEnum):
    """The gate's answer for one claim (see :func:`ledger.gate.gate.judge`)."""

    VERIFIED = "verified"
    UNVERIFIED = "unverified"
    REJECTED = "rejected"


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One check's outcome with a documented reason code (:mod:`ledger.gate.reasons`).

    ``detail`` is for people: it says what was expected and what was found. ``span_id`` is set
    by the per-binding checks (existence, version, quote).
    """

    check: str
    outcome: Outcome
    reason: str
    detail: str
    span_id: str | None = None

    def to_json(self) -> dict[str, object]:
        """The result as a JSON object; ``span_id`` is present only when set."""
        out: dict[str, object] = {
            "check": self.check,
            "outcome": self.outcome.value,
            "reason": self.reason,
            "detail": self.detail,
        }
        if self.span_id is not None:
            out["span_id"] = self.span_id
        return out


@dataclass(frozen=True, slots=True)
class SpanFacts:
    """What the caller resolved about one bound span before asking the gate.

    ``exists``: the span id resolves in the registry; ``in_pool``: it is in the receipt's sealed
    evidence pool; ``in_force``: its source version was in force at the receipt's ``as_of``;
    ``withdrawn``: its source is withdrawn. ``text`` is the verbatim span text (``""`` when the
    span does not exist); ``envelope`` is the citeable one-line envelope of a table cell
    (:func:`ledger.text.tables.render_tables`); ``version_detail`` describes the version for
    people, e.g. ``"version 2 effective 2026-01-01..2026-06-01"``.
    """

    span_id: str
    exists: bool
    in_pool: bool
    in_force: bool
    withdrawn: bool
    text: str
    envelope: str | None = None
    version_detail: str = ""

    @property
    def evidence_text(self) -> str:
        """What the span contributes as evidence: its text, and its envelope for a table cell."""
        if self.envelope:
            return f"{self.text}\n{self.envelope}"
        return self.text


@dataclass(frozen=True, slots=True)
class Binding:
    """A claim's citation of one span, in a role, optionally with a verbatim quote of it."""

    span_id: str
    role: Role = Role.PRIMARY
    quote: str | None = None


@dataclass(frozen=True, slots=True)
class ClaimDraft:
    """A claim a downstream model wrote, with the spans it cites.

    ``material`` claims carry the answer; a material claim without a binding can never be
    verified. ``client_ref`` is the caller's own reference, echoed and never interpreted.
    """

    text: str
    type: ClaimType = ClaimType.FACTUAL
    material: bool = True
    bindings: tuple[Binding, ...] = ()
    client_ref: str | None = None


@dataclass(frozen=True, slots=True)
class Verdict:
    """The gate's status for one claim and every check result that led to it, in order."""

    status: Status
    checks: tuple[CheckResult, ...]

    def to_json(self) -> dict[str, object]:
        """The verdict as a JSON object: ``{"status": ..., "checks": [...]}``."""
        return {"status": self.status.value, "checks": [c.to_json() for c in self.checks]}


@dataclass(frozen=True)
class GateConfig:
    """Tunable limits of the gate.

    ``support_threshold`` is the least share of a claim's content words that its support spans
    must contain (see ``docs/gate.md`` for the data behind the default);
    ``computation_tolerance`` is the relative tolerance of a recomputed value.
    """

    support_threshold: float = 1.0
    computation_tolerance: float = 0.005
