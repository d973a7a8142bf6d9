"""Minimal edits of what a true sentence's figure is of and when, for the gate evaluation.

The same contract as :mod:`benchmarks.gate_mutations` (one edit of the first candidate, or
``None``), for the figure's qualifiers: a forecast or preliminary figure stated as a fact, a
figure of part of a year dated to the year, and a figure whose measured quantity is widened.
Written independently of the gate's word lists.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_FIGURE = re.compile(r"(?<![\w.])(?!(?:19|20)\d\d\b)\d[\d,]*(?:\.\d+)?(?!\w)")
"""A figure that is not a year."""

_FORECAST_WORD = re.compile(
    r"\b(?:preliminary|provisional|tentative|budgeted|projected|forecast|forecasted|estimated|"
    r"expected|anticipated)\s+(?=[a-z]+\b)(?!(?:to|that|by|in|on|at|for)\b)",
    re.IGNORECASE,
)
_FORECAST_BE = re.compile(
    r"\b(is|are|was|were)\s+(?:projected|forecast|expected|anticipated|predicted|estimated)\s+"
    r"to\s+be\b",
    re.IGNORECASE,
)


def forecast(sentence: str) -> str | None:
    """Drop the first word that makes a figure a forecast or not yet final (``Preliminary
    revenue was $4.5 million`` -> ``Revenue was ...``; ``is projected to be`` -> ``is``), in a
    sentence with a figure."""
    if _FIGURE.search(sentence) is None:
        return None
    match = _FORECAST_BE.search(sentence)
    if match is not None:
        return sentence[: match.start()] + match.group(1) + sentence[match.end() :]
    match = _FORECAST_WORD.search(sentence)
    if match is None:
        return None
    edited = sentence[: match.start()] + sentence[match.end() :]
    return edited[:1].upper() + edited[1:] if match.start() == 0 else edited


_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_YEAR_PART = re.compile(
    rf"\b(?:the\s+(?:first|second|third|fourth)\s+(?:quarter|half)\s+of|Q[1-4]|H[12]|"
    rf"(?:{_MONTHS})|early|late|mid-)\s*((?:19|20)\d\d)\b"
)


def year_part(sentence: str) -> str | None:
    """Date a figure of part of a year to the whole year (``rose 5% in the third quarter of
    2023`` -> ``rose 5% in 2023``; ``in Q3 2023``, ``in December 2023``, ``in early 2023``):
    the time phrase must follow a figure that is not a year, within six words and no comma,
    so that it dates the figure (an event keeps its year: ``established in February 2009``
    is still true as ``established in 2009``). Not a day of a month (``December 31, 2023``)."""
    for match in _YEAR_PART.finditer(sentence):
        if re.match(r"\s*\d", sentence[match.end() :]) or "," in match.group(0):
            continue
        figures = list(_FIGURE.finditer(sentence, 0, match.start()))
        if not figures:
            continue
        between = sentence[figures[-1].end() : match.start()]
        if "," in between or ";" in between or len(between.split()) > 6:
            continue
        return sentence[: match.start()] + match.group(1) + sentence[match.end() :]
    return None


_MODIFIER = re.compile(
    r"(?<!\bthe )(?<!\band )(?<!\bor )\b(?:[A-Z][a-z]{2,}(?:ian|ean|ese|ish)|[Oo]nline|"
    r"[Dd]omestic|[Ii]nternational|[Qq]uarterly|[Mm]onthly|[Oo]rganic|[Rr]etail|[Ww]holesale|"
    r"[Aa]djusted)\s+(?=[a-z]+\b)"
)
"""A modifier of place, channel or basis: a demonym (``European``, ``Japanese``, ``British``;
not ``These``, nor a name after ``the``, ``the Guardian``, nor the second of two, ``the French
and Spanish fleets``) or one of a few words."""
_PER = re.compile(r"\s+per\s+[a-z]+\b")
_TIME_SPAN = re.compile(r"[\s-]*(?:years?|months?|weeks?|days?|hours?|decades?|of\s+our)\b")
"""A figure that dates or lasts rather than measures (``300 years``, ``687 of our days``,
``a 30-day average``)."""
_MONTH_BEFORE = re.compile(rf"(?:{_MONTHS}|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.?\s*$")
"""A month name right before a figure: the figure is a day of it (``December 31``), a date."""
_CLAUSE_CUT = re.compile(r"[,;]\s*|\s+(?:and|but|while|whereas|because|as)\s+")


def measure(sentence: str) -> str | None:
    """Widen what the sentence's first figure that measures (not ``300 years``, ``a 30-day
    average`` or the day of ``December 31``) measures: drop
    a modifier of place, channel or basis before it in its own clause, only before a
    lower-case word (``European revenue rose 5%`` -> ``Revenue rose 5%``), or a ``per <word>``
    there (``Revenue per customer rose 5%`` -> ``Revenue rose 5%``)."""
    figure = next(
        (
            f
            for f in _FIGURE.finditer(sentence)
            if not _TIME_SPAN.match(sentence, f.end())
            and not _MONTH_BEFORE.search(sentence, 0, f.start())
        ),
        None,
    )
    if figure is None:
        return None
    # The figure's own clause: after the last comma, semicolon or conjunction before it.
    cut = max((m.end() for m in _CLAUSE_CUT.finditer(sentence, 0, figure.start())), default=0)
    per = _PER.search(sentence, cut, figure.start())
    if per is not None:
        return sentence[: per.start()] + sentence[per.end() :]
    match = _MODIFIER.search(sentence, cut, figure.start())
    if match is None:
        return None
    edited = sentence[: match.start()] + sentence[match.end() :]
    return edited[:1].upper() + edited[1:] if match.start() == 0 else edited


FIGURE_MUTATIONS: dict[str, Callable[[str], str | None]] = {
    "forecast": forecast,
    "year_part": year_part,
    "measure": measure,
}
"""The edits of this module, by the name of their evaluation category (``mutant_<kind>``)."""
