"""Which figures a computational claim's words admit: the years it names, the lines of a
sentence it names, every cited span, and the count of periods it states.

A change "from 2017 to 2018" is not computed from the figures of 2018 and 2019
(:func:`within`); a claim about one year may compare it with any year before it, never a
later one; every cited span that writes a figure must be used (a citation the computation does
not need is not evidence for it); a sentence's figure counts only where the claim names what
it is a figure of (:func:`ledger.gate.computation.operands.named_subject`). A count of periods
(``the 3 years``) counts the figures and is not itself one (:func:`period_count`); a count of
the years a sum or an average is over (``over the three years``) fixes how many figures it
takes (:func:`counted_periods`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ledger.gate.anchors.numbers import FISCAL_CLAIM, fiscal_year
from ledger.gate.anchors.reading import Reading
from ledger.gate.computation.claimed import OPERATION_WORDS
from ledger.gate.computation.formulas import Candidate
from ledger.gate.computation.operands import named_subject, operands_of
from ledger.gate.model import ClaimType, SpanFacts

_PERIOD_COUNT = re.compile(
    r"[\s-]*(?:fiscal\s+|financial\s+)?(?:years?|quarters?|months?|periods?)\b", re.IGNORECASE
)


def _uses_every_span(candidate: Candidate, writing: frozenset[int]) -> bool:
    """Whether a formula reads a figure of every cited span that writes one: a citation the
    computation does not need is not evidence for it."""
    uses = candidate.uses
    if len(uses) == 2:
        return writing <= uses[0].spans | uses[1].spans
    used: set[int] = set()
    for op in uses:
        used |= op.spans
    return writing <= used


def period_count(claim: Reading, claim_type: ClaimType, spans: Sequence[SpanFacts]) -> list[float]:
    """The count of periods a computational claim names (``the 3 years``, ``a 2-year period``)
    when it equals the number of cited spans that write a figure: it counts the figures the
    computation uses and is not itself a figure of the evidence (the anchors check exempts it).
    """
    if claim_type is not ClaimType.COMPUTATIONAL:
        return []
    counts = [
        amount.value
        for amount in claim.amounts
        if amount.kind == "number"
        and amount.scale is None
        and amount.currency is None
        and amount.decimals == 0
        and _PERIOD_COUNT.match(claim.text, amount.end)
    ]
    if not counts:
        return []
    writing = operands_of(spans).writing
    return [count for count in counts if count == len(writing)]


_COUNT_WORDS = {
    "both": 2, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip
_COUNTED_PERIODS = re.compile(
    r"(?:\b(?:the|a|an)\s+(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,2})"
    r"|\b(both))[\s-]+(?:fiscal\s+|financial\s+)?(?:years?|periods?)\b",
    re.IGNORECASE,
)
"""A count of the years a sum or an average is over (``over the three years``, ``both years``,
``a 3-year period``): after an article, so not a horizon (``due within 5 years``, ``over the
next five years``); not of months or weeks (``the three months ended March 31`` names one
quarter of each year)."""


def counted_periods(text: str) -> int | None:
    """The number of years or periods a claim says it sums or averages, if it says one."""
    found = _COUNTED_PERIODS.search(text)
    if found is None:
        return None
    word = (found.group(1) or found.group(2)).lower()
    return _COUNT_WORDS[word] if word in _COUNT_WORDS else int(word)


def _claim_years(reading: Reading) -> tuple[int, int] | None:
    """The first and last year of the claim when it names two or more years (``from 2017 to
    2018``); a claim about one year (``rose in 2019``) may compare it with any year before,
    never with a later one: ``The change in sales in 2018`` is not computed from the figures
    of 2019 and 2018."""
    years = {int(d.key[:4]) for d in reading.dates if d.key[:4].isdigit()}
    if len(years) == 1:
        return (0, years.pop())
    return (min(years), max(years)) if years else None


@dataclass(frozen=True, slots=True)
class _Scope:
    """What a claim says its figures are of: the years it names (:func:`_claim_years`), its
    content words (for the subjects of a sentence's figures) and whether it names fiscal
    years (a period is then of the fiscal year it closes)."""

    years: tuple[int, int] | None
    lines: frozenset[str]
    fiscal: bool

    @classmethod
    def of(cls, reading: Reading) -> _Scope:
        return cls(
            _claim_years(reading),
            reading.content_stems(OPERATION_WORDS),
            FISCAL_CLAIM.search(reading.text) is not None,
        )


def _admissible(candidate: Candidate, writing: frozenset[int], scope: _Scope) -> bool:
    """Whether a candidate may stand for the claim: it uses every cited span that writes a
    figure, only figures of the years the claim names, and only sentence figures of what the
    claim names (:func:`ledger.gate.computation.operands.named_subject`)."""
    return (
        _uses_every_span(candidate, writing)
        and _within(candidate, scope.years, scope.fiscal)
        and all(named_subject(op, scope.lines) for op in candidate.uses)
    )


def _within(candidate: Candidate, years: tuple[int, int] | None, fiscal: bool = False) -> bool:
    """Whether every operand with a known period lies within the years the claim names: a
    change "from 2017 to 2018" cannot be computed from the figures of 2018 and 2019. For a
    claim about fiscal years, a period is of the fiscal year it closes
    (:func:`ledger.gate.anchors.numbers.fiscal_year`: ``January 3, 2020`` closes fiscal 2019)."""
    if years is None:
        return True
    return all(
        years[0] <= (fiscal_year(op.period) if fiscal else int(op.period[:4])) <= years[1]
        for op in candidate.uses
        if op.period and op.period[:4].isdigit()
    )


# Over 60 lines on purpose: the reason codes are an ordered ladder (not computational,
# unparseable, sign conflict, no operands, recomputed, unit mismatch, sign ambiguous,
# mismatch, not reproduced); kept in one place, their order can be read top to bottom.
