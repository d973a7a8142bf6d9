"""Codes in plain words for a reader who does not know them: the gate's checks and reason
codes, claim statuses, citation warnings, routes and the router's reasons, expiry reasons,
exclusion codes and the words of a transformation's loss boundary.

The gate's meanings come from its own table (``ledger.gate.reasons.REASONS``), so a new
reason code reads correctly here the day it is added. The router's outcomes and reasons, and
the expiry reasons, have their words here; the unit tests hold these tables to every code the
router and the expiry process can give. Pages show the code itself beside the words, in
small type: the words are for reading, the code is what a script or a search matches on.
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

REFUSALS = {
    "rejected": "rejected: a hard check failed; never committed",
    "batch": "not committed: another claim of the same request failed",
    "render": "not committed: the request's rendered answer failed its check",
}
"""Why a refused claim was not committed: its own checks, or its atomic request's."""

WARNINGS = {
    "superseded": "A newer version of this source replaces the cited one.",
    "withdrawn": "The source has been withdrawn; the citation still resolves, marked withdrawn.",
    "span_not_in_pool": "The cited span is not in the registry's view of the sealed pool.",
    "unverified": "The claim is committed but not verified.",
    "rejected": "The claim was rejected.",
    "ended": "The cited version's effective interval has ended.",
}

ROUTES = {
    "deterministic_state": "Deterministic state: the answer is read from a known record",
    "hybrid_retrieval": "Hybrid retrieval: the evidence is retrieved from a larger corpus",
    "long_context": "Long context: the whole bounded corpus is read in one prompt",
    "ask_abstain_escalate": "Ask, abstain or escalate: the evidence at hand cannot answer",
    "redesign": "Redesign: the context must be assembled differently before answering",
    "abstain": "Abstain: the evidence at hand cannot answer",
}
"""Each context architecture a receipt's route names (``ledger.router.table.Outcome``, and
``abstain``, the name receipts used before the router)."""

ROUTE_REASONS = {
    "compression-drops-exception": "a decision-critical exception would not survive compression",
    "entitlement-denied": "the person asking may not see the evidence the decision needs",
    "entitlement-partial": "the entitlement gate withheld part of the evidence",
    "authority-missing": "no source of record holds a fact the answer needs",
    "temporal-conflict": "authentic versions disagree at the decision time",
    "known-fact-lookup": "the task looks up a known fact",
    "untrusted-instructions-typed-as-data": "instructions found in the evidence are kept as data",
    "bounded-corpus-fits-operating-length": "the corpus fits the evidence budget",
    "corpus-exceeds-operating-length": "the corpus is larger than the evidence budget",
    "declared-by-client": "the application declared the route; the router did not decide it",
}
"""The router's reasons (``ledger.router.table``: each row's reason and the notes)."""

EXPIRIES = {
    "source_superseded": "a newer version of a cited source replaced the cited one",
    "source_withdrawn": "a cited source was withdrawn",
    "source_access_changed": "the access rules of a cited source changed",
    "policy_retired": "the policy version it was opened under was retired",
    "expires_at_passed": "its expiry time passed",
    "api_key_revoked": "the API key that opened it was revoked",
    "model_retired": "the model version it records was retired",
    "tool_retired": "a tool version it records (or the tool, recorded without a version) was "
    "retired",
    "context_assembly_changed": "another version of its context assembly was declared in force",
    "memory_corrected": "a memory item it was shown was corrected",
    "memory_revoked": "a memory item it was shown was revoked",
    "memory_expired": "a memory item it was shown expired",
}
"""Why a receipt expired (``processes.expiry``, ``processes.expiry_recorded`` and
``ledger.receipts.document``)."""

EXCLUSIONS = {
    "entitlement-group-mismatch": "the person's groups do not include the source's",
    "entitlement-purpose-mismatch": "the stated purpose is not one the source allows",
    "entitlement-no-rule": "no access rule allowed the source",
    "entitlement-denied": "the access policy denied the source",
    "lexical-gate": "the span shares too few words with the question",
    "excluded": "withheld by the source filter",
    "pii": "personal data",
}
"""Why evidence was left out of a pool or withheld from a retrieval. Exclusion codes are
partly the application's own (``pii``); a code without words here is spelled out."""

METHODS = {
    "compression": "Compression: the inputs shortened",
    "summary": "Summary: the inputs restated in fewer words",
    "deduplication": "Deduplication: what the inputs repeat, said once",
    "translation": "Translation: the inputs in another language",
}
"""What a transformation did (``ledger.receipts.transformations.Method``)."""

MAY_REMOVE = {
    "repetition": "repetition",
    "examples": "examples",
    "procedure": "procedure",
    "low_weight_sources": "low-weight sources (advisory and fallback)",
}
"""What a transformation may remove (``ledger.lossboundary.MayRemove``)."""

MUST_KEEP = {
    "exceptions": "exceptions and conditions",
    "numbers": "thresholds and numbers",
    "dates": "dates",
    "negations": "negations",
    "uncertainty": "uncertainty",
    "minority_views": "minority views",
}
"""What a transformation must keep (``ledger.lossboundary.MustKeep``)."""

WITNESS = {
    "pending": "nothing cosigned yet",
    "cosigned": "cosigned",
    "unavailable": "did not answer",
    "refused": "refused the latest checkpoint",
}


def spelled(code: str) -> str:
    """A code without words of its own, spelled out (``source_access_changed``: "source
    access changed")."""
    return code.replace("_", " ").replace("-", " ")


def sentence(words: str) -> str:
    """``words`` as a sentence: capital first letter, full stop."""
    text = words.strip()
    if not text:
        return text
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def check_name(check: str) -> str:
    """What a check tests, in words."""
    return CHECKS.get(check, sentence(spelled(check)).rstrip("."))


def reason_words(check: str, code: str) -> str:
    """What a reason code means (the gate's own words), or the code spelled out."""
    reason = REASONS.get((check, code))
    return sentence(reason.meaning if reason is not None else spelled(code))


def outcome_words(outcome: str) -> str:
    """``held``, ``failed`` or ``not applicable``."""
    return OUTCOMES.get(outcome, outcome)


def status_words(status: str) -> str:
    """A claim status explained."""
    return STATUSES.get(status, status)


def refusal_words(cause: str) -> str:
    """Why a refused claim was not committed."""
    return REFUSALS.get(cause, REFUSALS["rejected"])


def warning_words(warning: str) -> str:
    """A citation warning explained."""
    return WARNINGS.get(warning, sentence(spelled(warning)))


def route_words(route: str) -> str:
    """A route (context architecture) explained."""
    return ROUTES.get(route, sentence(spelled(route)).rstrip("."))


def route_reason_words(reason: str) -> str:
    """One of the router's reasons explained."""
    return ROUTE_REASONS.get(reason, spelled(reason))


def expiry_words(reason: str) -> str:
    """Why a receipt expired."""
    return EXPIRIES.get(reason, spelled(reason))


def exclusion_words(code: str) -> str:
    """Why evidence was left out."""
    return EXCLUSIONS.get(code, spelled(code))


def method_words(method: str) -> str:
    """What a transformation did."""
    return METHODS.get(method, sentence(spelled(method)).rstrip("."))


def may_remove_words(item: str) -> str:
    """An item of what a transformation may remove."""
    return MAY_REMOVE.get(item, spelled(item))


def must_keep_words(item: str) -> str:
    """An item of what a transformation must keep."""
    return MUST_KEEP.get(item, spelled(item))


def witness_words(state: str) -> str:
    """The witness's state."""
    return WITNESS.get(state, spelled(state))
