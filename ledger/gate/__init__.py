"""The commit gate: deterministic checks that give each submitted claim a status.

A wrong citation is worse than none, so the gate answers ``unverified`` whenever it cannot
establish support and ``rejected`` whenever a citation is broken or contradicted. See
``docs/gate.md`` for every check, reason code and the evaluation figures.
"""

from __future__ import annotations

from pathlib import Path

from ledger.gate._compiled import select

COMPILED = select(Path(__file__).parent)
"""Whether the gate's modules run compiled (:mod:`ledger.gate._compiled`); decided before any
of them is imported."""

from ledger.gate.gate import HARD_CHECKS, ORDER, judge
from ledger.gate.model import (
    Binding,
    CheckResult,
    ClaimDraft,
    ClaimType,
    GateConfig,
    Outcome,
    Role,
    SpanFacts,
    Status,
    Verdict,
)
from ledger.gate.normalize import normalise_quote
from ledger.gate.reasons import REASONS

__all__ = [
    "COMPILED",
    "HARD_CHECKS",
    "ORDER",
    "REASONS",
    "Binding",
    "CheckResult",
    "ClaimDraft",
    "ClaimType",
    "GateConfig",
    "Outcome",
    "Role",
    "SpanFacts",
    "Status",
    "Verdict",
    "judge",
    "normalise_quote",
]
