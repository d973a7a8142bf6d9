"""Route one request to exactly one of five context architectures: a decision table, no scores.

The rows of :data:`TABLE` are checked in order and the first that applies decides (the table
is printed in ``docs/router.md``). Authority, entitlement, temporal validity and trust are
gates outside the budget: a row that fails one of them routes to asking, abstaining or
escalating whatever the corpus size, because spare tokens cannot buy permission or make an
obsolete fact current. Only then do the task and the corpus size choose between deterministic
state, a structured long-context read and bounded hybrid retrieval.

The budget splits the operating length (the length at which the task was tested to work, not
the model's nominal limit) into evidence, background, instruction and verification, by fixed
percentages per outcome (:data:`BUDGET_SPLIT`), in whole tokens; the rounding remainder goes
to verification.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from ledger.errors import InvalidInput

ROUTER_VERSION = "router/1"
MAX_TOKENS = 10**12


class Outcome(StrEnum):
    """The five architectures a request may use."""

    DETERMINISTIC_STATE = "deterministic_state"
    HYBRID_RETRIEVAL = "hybrid_retrieval"
    LONG_CONTEXT = "long_context"
    ASK_ABSTAIN_ESCALATE = "ask_abstain_escalate"
    REDESIGN = "redesign"


OUTCOMES = tuple(outcome.value for outcome in Outcome)
TASKS = ("lookup", "comparison", "question")
ENTITLEMENTS = ("allowed", "partial", "denied")


@dataclass(frozen=True)
class RouteRequest:
    """What the router decides on."""

    task: str
    corpus_tokens: int
    operating_length_tokens: int
    authoritative_source: bool
    entitlement: str
    temporal_conflict: bool = False
    untrusted_instructions: bool = False
    compression_drops_exception: bool = False

    def check(self, where: str = "") -> None:
        """Refuse an out-of-range input, naming each field."""
        errors: list[dict[str, str]] = []
        if self.task not in TASKS:
            errors.append(_error(where, "task", "known-task", f"task is one of {list(TASKS)}"))
        if self.entitlement not in ENTITLEMENTS:
            errors.append(
                _error(where, "entitlement", "known-entitlement", f"one of {list(ENTITLEMENTS)}")
            )
        if not 0 <= self.corpus_tokens <= MAX_TOKENS:
            errors.append(_error(where, "corpus_tokens", "range", f"0 to {MAX_TOKENS}"))
        if not 1 <= self.operating_length_tokens <= MAX_TOKENS:
            errors.append(_error(where, "operating_length_tokens", "range", f"1 to {MAX_TOKENS}"))
        if errors:
            raise InvalidInput.many(errors)

    def to_json(self) -> dict[str, Any]:
        """The input as recorded beside the decision."""
        return asdict(self)


def _error(where: str, name: str, rule: str, message: str) -> dict[str, str]:
    return {"field": f"{where}{name}", "rule": rule, "message": f"{name}: {message}"}


BUDGET_SPLIT: Mapping[Outcome, Mapping[str, int]] = {
    Outcome.DETERMINISTIC_STATE: {
        "evidence": 30,
        "background": 10,
        "instruction": 30,
        "verification": 30,
    },
    Outcome.HYBRID_RETRIEVAL: {
        "evidence": 50,
        "background": 15,
        "instruction": 15,
        "verification": 20,
    },
    Outcome.LONG_CONTEXT: {"evidence": 70, "background": 5, "instruction": 10, "verification": 15},
    Outcome.ASK_ABSTAIN_ESCALATE: {
        "evidence": 0,
        "background": 10,
        "instruction": 50,
        "verification": 40,
    },
    Outcome.REDESIGN: {"evidence": 0, "background": 0, "instruction": 0, "verification": 0},
}
"""Percent of the operating length per budget, per outcome (each row sums to 100, or to 0
when nothing is assembled)."""

BASE_GATES = ("authority", "entitlement", "temporal-validity", "trust-typing")
"""Gates outside the allocation, required on every route that assembles context."""

GATES: Mapping[Outcome, tuple[str, ...]] = {
    Outcome.DETERMINISTIC_STATE: (*BASE_GATES, "evidence-binding"),
    Outcome.HYBRID_RETRIEVAL: (*BASE_GATES, "claim-provenance", "contradiction-preserved"),
    Outcome.LONG_CONTEXT: (*BASE_GATES, "position-tests", "document-delimiting"),
    Outcome.ASK_ABSTAIN_ESCALATE: ("safe-explanation", "escalation-route"),
    Outcome.REDESIGN: ("upstream-contract",),
}


def budget(outcome: Outcome, operating_length_tokens: int) -> dict[str, int]:
    """Whole-token allocation of the operating length; the remainder goes to verification."""
    split = BUDGET_SPLIT[outcome]
    parts = {name: operating_length_tokens * pct // 100 for name, pct in split.items()}
    if sum(split.values()):
        parts["verification"] += operating_length_tokens - sum(parts.values())
    return parts


def _fits(request: RouteRequest) -> bool:
    evidence = budget(Outcome.LONG_CONTEXT, request.operating_length_tokens)["evidence"]
    return request.corpus_tokens <= evidence


@dataclass(frozen=True)
class Row:
    """One row of the decision table."""

    id: str
    reason: str
    applies: Callable[[RouteRequest], bool]
    outcome: Outcome
    evidence_gap: str = ""


TABLE: tuple[Row, ...] = (
    Row(
        "R1",
        "compression-drops-exception",
        lambda r: r.compression_drops_exception,
        Outcome.REDESIGN,
        "a decision-critical exception does not survive compression: retain it verbatim or "
        "redesign the assembly before adding context",
    ),
    Row(
        "R2",
        "entitlement-denied",
        lambda r: r.entitlement == "denied",
        Outcome.ASK_ABSTAIN_ESCALATE,
        "the principal may not see the evidence the decision needs: ask for authorised "
        "evidence or escalate",
    ),
    Row(
        "R3",
        "entitlement-partial",
        lambda r: r.entitlement == "partial",
        Outcome.ASK_ABSTAIN_ESCALATE,
        "the entitlement gate excluded evidence (recorded by safe code only): ask for "
        "authorised evidence or escalate rather than infer it",
    ),
    Row(
        "R4",
        "authority-missing",
        lambda r: not r.authoritative_source,
        Outcome.ASK_ABSTAIN_ESCALATE,
        "no source of record holds a required fact: state the gap rather than fill it with "
        "weaker proxies",
    ),
    Row(
        "R5",
        "temporal-conflict",
        lambda r: r.temporal_conflict,
        Outcome.ASK_ABSTAIN_ESCALATE,
        "authentic versions conflict at the decision time without a precedence rule: "
        "preserve both and ask the owner; stop the material action",
    ),
    Row(
        "R6",
        "known-fact-lookup",
        lambda r: r.task == "lookup",
        Outcome.DETERMINISTIC_STATE,
    ),
    Row(
        "R7",
        "untrusted-instructions-typed-as-data",
        lambda r: r.untrusted_instructions,
        Outcome.HYBRID_RETRIEVAL,
    ),
    Row(
        "R8",
        "bounded-corpus-fits-operating-length",
        _fits,
        Outcome.LONG_CONTEXT,
    ),
    Row(
        "R9",
        "corpus-exceeds-operating-length",
        lambda r: True,
        Outcome.HYBRID_RETRIEVAL,
    ),
)

NOTES: tuple[tuple[str, Callable[[RouteRequest], bool]], ...] = (
    ("untrusted-instructions-typed-as-data", lambda r: r.untrusted_instructions),
    ("temporal-conflict", lambda r: r.temporal_conflict),
    ("authority-missing", lambda r: not r.authoritative_source),
    ("entitlement-partial", lambda r: r.entitlement == "partial"),
)
"""Conditions recorded as further reasons when present but not the deciding row's."""


@dataclass(frozen=True)
class RouteDecision:
    """The router's answer: the outcome, the deciding row, gates, budget, gap and reasons."""

    outcome: Outcome
    row: str
    gates: tuple[str, ...]
    budget: Mapping[str, int]
    evidence_gap: str
    reasons: tuple[str, ...]
    request: RouteRequest

    def to_json(self) -> dict[str, Any]:
        """The decision as answered and as recorded (signed) on a receipt."""
        return {
            "router": ROUTER_VERSION,
            "outcome": self.outcome.value,
            "row": self.row,
            "gates": list(self.gates),
            "budget": dict(self.budget),
            "evidence_gap": self.evidence_gap,
            "reasons": list(self.reasons),
            "input": self.request.to_json(),
        }


def route(request: RouteRequest) -> RouteDecision:
    """The decision of the first row of :data:`TABLE` that applies (deterministic)."""
    request.check()
    row = next(row for row in TABLE if row.applies(request))
    notes = [reason for reason, present in NOTES if present(request) and reason != row.reason]
    return RouteDecision(
        outcome=row.outcome,
        row=row.id,
        gates=GATES[row.outcome],
        budget=budget(row.outcome, request.operating_length_tokens),
        evidence_gap=row.evidence_gap,
        reasons=(row.reason, *notes),
        request=request,
    )


LEGACY_OUTCOMES = {"abstain": Outcome.ASK_ABSTAIN_ESCALATE.value}


def declared_decision(declared_route: str) -> dict[str, Any]:
    """How a receipt whose route the client declared (before the router, or without
    ``routing``) reads as a decision: its outcome (``abstain`` is ``ask_abstain_escalate``),
    no row, gates, budget or input, and the reason ``declared-by-client``."""
    return {
        "router": "declared",
        "outcome": LEGACY_OUTCOMES.get(declared_route, declared_route),
        "row": None,
        "gates": [],
        "budget": None,
        "evidence_gap": "",
        "reasons": ["declared-by-client"],
        "input": None,
    }
