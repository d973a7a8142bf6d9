"""The support check: enough of the claim's content words must be in its support spans.

The score is token-intersection recall: the share of the claim's distinct content stems
(:func:`ledger.gate._words.content_stems`: lower-cased, crudely stemmed, without stop words,
numbers and non-discriminative domain words such as *net*, *total*, *year*, *company*) that
occur among the stems of the support spans' text and envelopes. For computational claims the
words that name the operation (*change*, *average*, *ratio*, ...) are left out too: the
computation check owns them.
"""

from __future__ import annotations

from collections.abc import Sequence

from ledger.gate._reading import Reading, read_span, read_text
from ledger.gate._words import word_set
from ledger.gate.model import CheckResult, Outcome

CHECK = "support"
_MAX_LISTED = 12

OPERATION_WORDS = word_set(
    """
    change changed changes difference differences increase increased increases decrease
    decreased decreases rose rise risen fell fall fallen grew grow growth declined decline
    percentage percent ratio average averaged mean sum summed combined totalled totaled
    proportion share times basis points point bps compared between from
    altogether overall absolute relative constitute constitutes constituted constitution
    represent represents represented expressed portion fraction nominal respective
    """
)
"""Words naming the arithmetic of a computational claim, ignored by its support score: the
computation check recomputes the operation they name."""


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
