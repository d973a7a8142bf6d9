"""Reason codes, checks and statuses in plain words for a reader who does not know the codes.

The meanings come from the gate's own table (``ledger.gate.reasons.REASONS``), so a new
reason code reads correctly here the day it is added; the code itself is shown beside them.
"""

from __future__ import annotations

from ledger.gate.reasons import REASONS

CHECKS = {
    "existence": "The cited span exists",
    "version": "The source version was in force",
    "quote": "The quotation is in the span",
    "anchors": "Numbers, dates and identifiers match",
    "polarity": "Negation, hedging and direction agree",
    "computation": "The arithmetic recomputes",
    "support": "The claim's words are in the span",
    "coverage": "The claim cites evidence",
    "entailment": "A judge read the span as supporting the claim",
}

OUTCOMES = {"pass": "held", "fail": "failed", "skip": "not applicable"}

STATUSES = {
    "verified": "verified: every check held",
    "unverified": "unverified: committed, but a soft check did not hold",
    "rejected": "rejected: a hard check failed; never committed",
    "quarantined": "quarantined: kept for audit, never committed",
}

WARNINGS = {
    "superseded": "A newer version of this source replaces the cited one.",
    "withdrawn": "The source has been withdrawn; the citation still resolves, marked withdrawn.",
    "expired": "The receipt has expired; its claims are kept for audit only.",
    "span_not_in_pool": "The cited span is not in the registry's view of the sealed pool.",
    "unverified": "The claim is committed but not verified.",
    "rejected": "The claim was rejected.",
    "ended": "The cited version's effective interval has ended.",
}


def check_name(check: str) -> str:
    """What a check tests, in words."""
    return CHECKS.get(check, check.replace("_", " ").capitalize())


def reason_words(check: str, code: str) -> str:
    """What a reason code means (the gate's own words), or the code spelled out."""
    reason = REASONS.get((check, code))
    if reason is not None:
        return reason.meaning[:1].upper() + reason.meaning[1:] + "."
    return code.replace("_", " ").capitalize() + "."


def outcome_words(outcome: str) -> str:
    """``held``, ``failed`` or ``not applicable``."""
    return OUTCOMES.get(outcome, outcome)


def status_words(status: str) -> str:
    """A claim status explained."""
    return STATUSES.get(status, status)


def warning_words(warning: str) -> str:
    """A citation warning explained."""
    return WARNINGS.get(warning, warning.replace("_", " ").capitalize() + ".")
