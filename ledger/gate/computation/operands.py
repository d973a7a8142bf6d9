"""The operands of the computation check: the figures of the cited spans, each with its
period, declared scale, table line and, in a sentence, its ``from ... to`` order.

See :mod:`ledger.gate.computation.check` for how they are read; this module reads them once per span
text (and once per set of cited spans), cached like every span reading.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from ledger.gate.anchors.numbers import Amount, context_scale, dates
from ledger.gate.anchors.reading import SPAN_CACHE_SIZE, read_span
from ledger.gate.computation.claimed import OPERATION_WORDS, ClaimedResult
from ledger.gate.computation.formulas import Candidate, Formula, Operand
from ledger.gate.lexicon.words import content_stems
from ledger.gate.model import SpanFacts

MAX_OPERANDS = 10
"""The most operand figures taken from the support spans."""

_FISCAL_YEAR = re.compile(r"\bF(?:Y|iscal\s+(?:[Yy]ear\s+)?)?\s?'?(\d{2}|\d{4})\b")
"""A fiscal-year period without a calendar year: ``FY19``, ``F19``, ``FY 2019``."""
_YEAR_AFTER = re.compile(
    r"^\s*(?:in|for|during|as of|at|of)\s+(?:fiscal\s+(?:year\s+)?|FY\s?)?(\d{4})\b", re.IGNORECASE
)
_PERCENT_LABEL = re.compile(
    r"(?<![\d.])%|(?<!except )(?<!except for )\bper\s?cent(?:age)?s?\b", re.IGNORECASE
)
"""A row label or column header that gives its figures in percent (``Weightage (%)``, ``As
percentage of net revenues``); ``except percentages`` exempts them from a unit note instead,
and a percentage written in the label (the rate of ``4.875% Senior Notes``) names the line."""
_PERCENT_OF = re.compile(r"\b(per\s?cent(?:age)?)\s+of\s+([a-z]+)\b", re.IGNORECASE)
"""``the percentage of sales``: the measure a claim or a table caption names."""
_QUARTER = re.compile(r"\b(?:(first|second|third|fourth)\s+quarter|Q([1-4]))\b", re.IGNORECASE)
_ORDINALS = {"first": "1", "second": "2", "third": "3", "fourth": "4"}


@dataclass(frozen=True, slots=True)
class CitedOperands:
    """The operands of the cited spans (at most :data:`MAX_OPERANDS`), the same with bracketed
    figures read as positive, the indexes of the spans that write any figure (each of which a
    formula must use), and whether any figure is bracketed (so that the two readings differ).
    """

    figures: tuple[Operand, ...]
    unbracketed: tuple[Operand, ...]
    writing: frozenset[int]
    bracketed: bool

    def candidates(
        self, formula: Formula, claim: ClaimedResult
    ) -> Iterator[tuple[Candidate, Candidate]]:
        """Each candidate of ``formula`` with bracketed figures read as negative, paired with
        the same candidate with them read as positive (the generators enumerate the same
        combinations in the same order for both operand lists); without a bracketed figure
        the two readings are one, and the formula runs once."""
        if not self.bracketed:
            for candidate in formula(claim, self.figures):
                yield candidate, candidate
            return
        yield from zip(formula(claim, self.figures), formula(claim, self.unbracketed), strict=True)


def operands_of(spans: Sequence[SpanFacts], percent: bool = False) -> CitedOperands:
    """The operands of the support spans; see :func:`cited_operands`."""
    return cited_operands(tuple((span.text, span.envelope) for span in spans), percent)


@lru_cache(maxsize=SPAN_CACHE_SIZE)
def cited_operands(cited: tuple[tuple[str, str | None], ...], percent: bool) -> CitedOperands:
    """The figures of the spans given as (text, envelope), deduplicated, cached like the
    figures of each span: the claims of a receipt cite the same spans again and again. With
    ``percent``, plain figures are read as percentages (see :func:`caption_percent`)."""
    out: dict[tuple[float, str, str | None, str | None], Operand] = {}
    writing: set[int] = set()
    for index, (text, envelope) in enumerate(cited):
        subjects = None if envelope else sentence_subjects(text)
        for written, period, scale, line, step in span_figures(text, envelope):
            amount = _as_percent(written) if percent else written
            writing.add(index)
            key = _same_figure(out, (amount.mantissa, amount.kind, period, line))
            if key in out:
                seen = out[key]
                out[key] = replace(seen, spans=seen.spans | {index})
                continue
            absolute = amount.value if amount.scale else None
            if absolute is None and scale is not None and amount.kind == "number":
                absolute = amount.mantissa * scale
            order = (index, *step) if step else None
            row = line.partition(", ")[0] if line is not None else None
            subject, rivals = (None, ()) if subjects is None else subjects.of(written.start)
            signed = line is not None and signed_label(line)
            out[key] = Operand(
                amount,
                absolute,
                period,
                frozenset({index}),
                order,
                row,
                subject,
                rivals,
                signed,
            )
    figures = tuple(out.values())[:MAX_OPERANDS]
    return CitedOperands(
        figures,
        tuple(_unbracket(op) for op in figures),
        frozenset(writing),
        bracketed=any(op.amount.bracketed for op in figures),
    )


def _same_figure(
    seen: dict[tuple[float, str, str | None, str | None], Operand],
    key: tuple[float, str, str | None, str | None],
) -> tuple[float, str, str | None, str | None]:
    """The key of a figure already read that ``key`` writes again, else ``key``.

    A sentence figure (no line) is the same figure as any cited figure of equal value, kind
    and period (a sentence restating a cell); two cells are the same figure only under one row
    label and column header: two lines of a table that happen to hold equal values (``421.9``
    for two notes) are two figures."""
    if key in seen:
        return key
    for other in seen:
        if other[:3] == key[:3] and (other[3] is None or key[3] is None):
            return other
    return key


@dataclass(frozen=True, slots=True)
class Subjects:
    """What each figure of a sentence is a figure of: by where the figure starts, its group
    (a run of figures the sentence writes of one subject), and for each group the words that
    no other group has."""

    groups: dict[int, int]
    words: tuple[frozenset[str], ...]

    def of(self, at: int) -> tuple[frozenset[str], tuple[frozenset[str], ...]]:
        """The subject of the figure that starts at ``at``, and the other groups'."""
        group = self.groups.get(at, 0)
        return self.words[group], self.words[:group] + self.words[group + 1 :]


_CUT = re.compile(r"[,;]|\b(?:and|or|but|while|whereas|although|though)\b", re.IGNORECASE)
"""Where the words between two figures change from the first figure's to the second's."""


@lru_cache(maxsize=SPAN_CACHE_SIZE)
def sentence_subjects(text: str) -> Subjects:
    """The subjects of a sentence's figures (:class:`Subjects`; cached like its figures).

    The content words between two figures are the first one's up to the first comma,
    semicolon or conjunction among them, and the second one's after it (``Revenue was $4.0
    million in Europe and $4.5 million in Asia``: ``Europe`` is the first figure's; ``...,
    while costs rose from $2.0 million``: ``costs`` is the second's); the words before the
    first figure are its own, those after the last figure the last one's. A figure with no
    word of its own is of the subject of the one before it (``from $4.0 million to $4.5
    million``; ``$0.9 million and $0.6 million, respectively``)."""
    figures = read_span(text).reading.amounts
    groups: dict[int, int] = {}
    words: list[set[str]] = []
    before = 0
    for amount in figures:
        between = text[before : amount.start]
        cut = _CUT.search(between) if words else None
        if cut is not None:
            words[-1] |= content_stems(between[: cut.start()], OPERATION_WORDS)
            between = between[cut.start() :]
        own = content_stems(between, OPERATION_WORDS)
        if own or not words:
            words.append(own)
        groups[amount.start] = len(words) - 1
        before = amount.end
    if len(words) < 2:
        return Subjects(groups, (frozenset(),))
    words[-1] |= content_stems(text[before:], OPERATION_WORDS)
    distinct = []
    for i, mine in enumerate(words):
        others = set().union(*(w for j, w in enumerate(words) if j != i))
        distinct.append(frozenset(mine - others))
    return Subjects(groups, tuple(distinct))


def named_subject(op: Operand, claimed: frozenset[str]) -> bool:
    """Whether a figure may be read for a claim whose content words are ``claimed``: a cell's
    always (its line is the support check's), a sentence's unless the claim names what only
    another figure of the sentence is of and nothing that only this one's subject has (a
    claim of ``Revenue`` may not use the figures of ``..., while costs rose from ...``; one of
    ``Product revenue`` not those of ``service revenue``)."""
    if op.subject is None or op.subject & claimed:
        return True
    return not any(rival & claimed for rival in op.rivals)


_SIGNED_LABEL = re.compile(
    r"\((?:loss|losses|deficits?|decreases?|declines?|reductions?|used\s+(?:in|for)|outflows?"
    r"|expenses?|charges?|benefits?|unfavou?rable)\)",
    re.IGNORECASE,
)
_NESTING = re.compile(
    r"\b(?:in|of|on|from|for|to|at|within|under|into|over|against|between)\b", re.IGNORECASE
)
"""Prepositions that put the bracketed side into a phrase of its own (``Losses recognized in
other income (expense)``): it is then that phrase's, not the line's."""


def signed_label(head: str) -> bool:
    """Whether a cell's row label or column header writes the negative side of its own
    measure in brackets (``Operating income (loss)``, ``Net cash provided by (used in) ...``,
    ``Increase (decrease)``, ``Other income (expense), net``, ``Income tax expense
    (benefit)``): the table's brackets there mean that side, so its bracketed figures are
    negative (:func:`_unbracket` leaves them so). Each label is read apart (the row label and
    the column header: ``Voyage expenses, Increase (decrease) 2019`` signs the change its
    column states); a bracketed side after a preposition (``Losses recognized in other income
    (expense)``) is a nested phrase's, and the label is read both ways, as any other."""
    for part in head.split(", "):
        found = _SIGNED_LABEL.search(part)
        if found is not None and _NESTING.search(part, 0, found.start()) is None:
            return True
    return False


def _unbracket(op: Operand) -> Operand:
    """The operand with a bracketed figure read as positive, unless its label says that its
    brackets are negative (:func:`signed_label`)."""
    if not op.amount.bracketed or op.signed:
        return op
    amount = replace(op.amount, value=abs(op.amount.value), mantissa=abs(op.amount.mantissa))
    absolute = abs(op.absolute) if op.absolute is not None else None
    return replace(op, amount=amount, absolute=absolute)


def _period(head: str) -> str | None:
    """The last date, year or fiscal year (``FY19`` -> ``2019``) of a row label and header; a
    year with a quarter (``Fiscal 2019 Second Quarter``) is that quarter (``2019-Q2``)."""
    found = [(d.start, d.key) for d in dates(head) if not d.key.startswith("-")]
    for match in _FISCAL_YEAR.finditer(head):
        year = match.group(1)
        found.append((match.start(), year if len(year) == 4 else f"20{year}"))
    if not found:
        return None
    period = max(found)[1]
    quarters = {
        _ORDINALS.get((m.group(1) or "").lower(), m.group(2)) for m in _QUARTER.finditer(head)
    }
    if len(period) == 4 and len(quarters) == 1:
        period = f"{period}-Q{quarters.pop()}"
    return period


_Figure = tuple[Amount, str | None, float | None, str | None, tuple[int, int] | None]
"""A figure of a span: amount, period, declared scale, a cell's row label and column header,
and its place in a sentence's ``from <figure> to <figure>`` (see :func:`_from_to`)."""


@lru_cache(maxsize=SPAN_CACHE_SIZE)
def span_figures(text: str, envelope: str | None) -> tuple[_Figure, ...]:
    """Each figure of a span with its period, the scale the span declares, for a cell its row
    label and column header, and for a sentence the order ``from ... to`` gives it (cached)."""
    scale = context_scale(f"{text}\n{envelope}" if envelope else text)
    amounts = read_span(text).reading.amounts
    if envelope:
        # The period and a percent unit are in the row label or column header, never in the
        # table title.
        head = envelope.rsplit(":", 1)[0].rsplit(" \u2014 ", 1)[-1]
        period = _period(head)
        if _PERCENT_LABEL.search(head):
            amounts = tuple(_as_percent(a) for a in amounts)
        return tuple((a, period, scale, head, None) for a in amounts)
    steps = _from_to(text, amounts)
    return tuple(
        (a, _year_after(text, a), scale, None, steps.get(i)) for i, a in enumerate(amounts)
    )


_FROM = re.compile(r"\bfrom\s*$", re.IGNORECASE)
_TO = re.compile(r"\s*to\s*$", re.IGNORECASE)


def _from_to(text: str, amounts: Sequence[Amount]) -> dict[int, tuple[int, int]]:
    """The order a sentence gives two of its figures by writing ``from <figure> to
    <figure>`` (``Gross margin decreased from 45.2% to 42.3%``): the first is the old figure,
    the second the new, whether or not either has a period. Maps the index of each such
    figure to (the start of the pair's first figure, 0 for old or 1 for new)."""
    out: dict[int, tuple[int, int]] = {}
    for i, (old, new) in enumerate(itertools.pairwise(amounts)):
        if _TO.fullmatch(text, old.end, new.start) and _FROM.search(text, 0, old.start):
            out[i] = (old.start, 0)
            out[i + 1] = (old.start, 1)
    return out


def caption_percent(claim_text: str, spans: Sequence[SpanFacts]) -> bool:
    """Whether the cited cells' table gives its figures in percent by its caption alone: the
    claim measures ``the percentage of <word>`` (``the percentage of sales represented by
    gross profit``) and the title of every cited cell says the same (``the percentage of
    sales represented by certain items``). A caption is not otherwise read for units, since
    it may also describe columns of amounts; here the claim and the caption name one measure.
    """
    match = _PERCENT_OF.search(claim_text)
    if match is None:
        return False
    phrase = f"{match.group(1).lower()} of {match.group(2).lower()}"
    for span in spans:
        if span.envelope is None or " \u2014 " not in span.envelope:
            return False
        title = span.envelope.rsplit(" \u2014 ", 1)[0]
        found = _PERCENT_OF.search(title)
        if found is None or f"{found.group(1).lower()} of {found.group(2).lower()}" != phrase:
            return False
    return True


def _as_percent(amount: Amount) -> Amount:
    """A plain figure of a cell whose label gives percent, read as a percentage."""
    if amount.kind != "number" or amount.currency or amount.scale:
        return amount
    return replace(amount, kind="percent")


def _year_after(text: str, amount: Amount) -> str | None:
    match = _YEAR_AFTER.match(text[amount.end :])
    return match.group(1) if match else None
