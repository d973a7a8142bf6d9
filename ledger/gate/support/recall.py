"""The support check: enough of the claim's content words must be in its support spans.

The score is token-intersection recall: the share of the claim's distinct content stems
(:func:`ledger.gate.lexicon.words.content_stems`: lower-cased, crudely stemmed, without stop words,
numbers and non-discriminative domain words such as *net*, *total*, *year*, *company*) that
occur among the stems of the support spans' text and envelopes. For computational claims the
words that name the operation (*change*, *average*, *ratio*, ...) are left out too: the
computation check owns them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ledger.gate.anchors.reading import Reading, read_span, read_text
from ledger.gate.computation.claimed import OPERATION_WORDS
from ledger.gate.lexicon.words import content_stems
from ledger.gate.model import CheckResult, Outcome

CHECK = "support"
_MAX_LISTED = 12

OPERATION_PHRASES = re.compile(
    r"\bin\s+terms\s+of\b|\bmade\s+up\s+of\b|\bforms?\s+(?:a\s+)?part\s+of\b", re.IGNORECASE
)
"""Phrases that state a unit or a share (``in terms of $M``, ``is made up of``, ``form a part
of``), ignored by the support score of a computational claim like the operation words."""


def support_score(
    claim: str | Reading, evidence: Sequence[str], ignore: frozenset[str] = frozenset()
) -> tuple[float, list[str]]:
    """The recall of the claim's content stems in ``evidence`` and the stems that are missing.

    Returns ``(1.0, [])`` for a claim with no content word.
    """
    reading = read_text(claim) if isinstance(claim, str) else claim
    return _score(reading.content_stems(ignore), evidence)


def _score(wanted: frozenset[str], evidence: Sequence[str]) -> tuple[float, list[str]]:
    """The recall of the ``wanted`` stems in ``evidence`` and the stems that are missing."""
    if not wanted:
        return 1.0, []
    missing = set(wanted)
    for text in evidence:
        missing -= read_span(text).stems
        if not missing:
            return 1.0, []
    return 1 - len(missing) / len(wanted), sorted(missing)


def _may_hold_phrase(text: str) -> bool:
    """Whether ``text`` may hold an :data:`OPERATION_PHRASES` phrase (a cheap test first)."""
    return ("erms" in text or "ade up" in text or "art of" in text) and bool(
        OPERATION_PHRASES.search(text)
    )


def check_support(
    claim: str | Reading,
    evidence: Sequence[str],
    threshold: float,
    *,
    computational: bool = False,
) -> CheckResult:
    """Pass ``support_sufficient`` when the score reaches ``threshold``, else fail
    ``support_insufficient``; skip ``no_content_words`` when the claim has none.
    """
    reading = read_text(claim) if isinstance(claim, str) else claim
    ignore = OPERATION_WORDS if computational else frozenset()
    wanted = reading.content_stems(ignore)
    if computational and _may_hold_phrase(reading.text):
        wanted = frozenset(content_stems(OPERATION_PHRASES.sub(" ", reading.text), ignore))
    if not wanted:
        return CheckResult(
            CHECK, Outcome.SKIP, "no_content_words", "the claim has no content words"
        )
    score, missing = _score(wanted, evidence)
    shown = ", ".join(missing[:_MAX_LISTED]) + (" ..." if len(missing) > _MAX_LISTED else "")
    if score >= threshold:
        detail = f"score {score:.2f} >= {threshold:.2f}"
        if missing:
            detail += f"; not in the spans: {shown}"
        return CheckResult(CHECK, Outcome.PASS, "support_sufficient", detail)
    return CheckResult(
        CHECK,
        Outcome.FAIL,
        "support_insufficient",
        f"score {score:.2f} < {threshold:.2f}; not in the spans: {shown}",
    )
