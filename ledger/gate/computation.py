"""The computation check: recompute a computational claim's result from the figures it cites.

Operands are the amounts of the support spans: a table cell gives the amount in its text and
takes its period (the last date or year of its envelope before the value; with a quarter,
``Fiscal 2019 Second Quarter`` -> ``2019-Q2``) and its scale (``in thousands`` in the envelope
or text) from the envelope; a plain figure of a cell whose row label or column header gives
percent (``ROFE (%)``, ``As percentage of net revenues``; not the rate of ``4.875% Senior
Notes``) is a percentage, as is one of a cell whose table title names ``the percentage of
<word>`` that a percentage claim names too (:func:`_caption_percent`). A sentence gives
every amount it writes, each with the year that follows it (``$5.1 million in 2019``), if
any. Equal figures of two cells are two operands unless the cells share their row label and
column header; a sentence figure equal in value, kind and period to a cell's is that cell's
figure.

A sentence that writes ``from <figure> to <figure>`` (``decreased from 45.2% to 42.3%``)
orders those two figures, old then new, whatever their periods. A downward direction word with
a negative figure (``decreased by -45``) is a double negative and skips ``sign_conflict``.

Every cited span that writes a figure must be used by the formula (a figure two spans write
alike counts for both): a citation the computation does not need is not evidence for it. A
cell's period may also be a fiscal year without a calendar year (``FY19``, ``F19``). When the
claim names two or more years (``from 2017 to 2018``), every operand with a known period must
lie within them: a change from 2017 to 2018 is not computed from the figures of 2018 and 2019.

Formulas tried (:mod:`ledger.gate._formulas`; bounded: at most :data:`MAX_OPERANDS` operands,
subsets of at most ``MAX_SUBSET`` for sums and averages):

- change: ``new - old``, where *new* has the later period (by year, then by the whole date);
  without periods a claimed *change* cannot be reproduced, so that a sign flip never passes.
  A claim worded as a *difference* (which says nothing of order) may only match ``|a - b|``,
  and only with no direction word and a non-negative result, unless it runs ``from 2018 to
  2019``, which makes it a change;
- percent change ``(new - old) / |old|`` (both orders without periods), and, of two
  bracketed figures, ``new / old - 1`` (the change of their magnitudes, alike under both
  readings); between two percentages, their change in percentage points; basis-point change
  of two percentages; a claim in points (``2.9 percentage points``, ``2.9 points``) is only
  ever a change in points, and fails ``unit_mismatch`` when the figures give it in basis
  points or as a relative change, as a claim in basis points does when they give it in
  points;
- the change and percent change of a sum of lines between two ordered periods, each with the
  same number of operands (``International and Foodservice from 2018 to 2019``);
- ratio ``a / b`` (as a percentage when the claim is one), and the share of a sum in a total
  ``(a + b) / c`` over at most ``MAX_SHARE_OPERANDS`` operands; sum; average (over all
  operands too when there are more than ``MAX_SUBSET``); a *total percentage*: the sum of
  percentages, or a ratio when the figures are not all percentages;
- product ``a x b`` of two figures as written, a percentage as its fraction (``shares x
  price``, ``53% of revenue``), only for a claim that names no operation, of figures without
  scale words of their own.

A figure in parentheses, ``(1,102)``, is read both as negative and as positive. A formula
passes when both readings reproduce the claim. Tables use brackets for negatives and for
deductions alike, so a result that holds under one reading only is ``sign_ambiguous``, with
one exception: a result that holds when brackets are read as negatives (the accounting
convention) passes when no formula under either reading gives the opposite figure, so the
claim and its sign flip can never both pass, and a claim that dropped a bracket's sign never
does. A percent change from a negative base never passes that way (its sign has no agreed
reading; reports write it as not meaningful).

The claimed result must be reproduced within ``tolerance`` relative, or within half a unit of
its last written digit when that is larger, capped at :data:`ROUNDING_CAP` relative. Scale:
when every operand's scale is known (written or declared) the claim's own scale word is
applied; a claim without a scale word is also read in the operands' unit when they share one
declared scale (``169.4`` against cells of a ``($M)`` table); otherwise, when no operand has a
scale word of its own, the claim's figure is compared as written (the table's unit is taken to
be the claim's); other mixtures are not tried.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from ledger.gate._claimed import ClaimedResult, read_claim
from ledger.gate._formulas import (
    FORMULAS,
    OPEN_OPERATIONS,
    Candidate,
    Formula,
    Operand,
    ordered_pairs,
)
from ledger.gate._numbers import Amount, context_scale, dates
from ledger.gate._reading import SPAN_CACHE_SIZE, Reading, read_span, read_text
from ledger.gate.model import CheckResult, ClaimType, Outcome, SpanFacts

CHECK = "computation"
MAX_OPERANDS = 10
"""The most operand figures taken from the support spans."""
ROUNDING_CAP = 0.05
"""The largest relative error that rounding of the claimed figure may excuse."""

_FISCAL_YEAR = re.compile(r"\bF(?:Y|iscal\s+(?:[Yy]ear\s+)?)?\s?'?(\d{2}|\d{4})\b")
"""A fiscal-year period without a calendar year: ``FY19``, ``F19``, ``FY 2019``."""
_YEAR_AFTER = re.compile(
    r"^\s*(?:in|for|during|as of|at|of)\s+(?:fiscal\s+(?:year\s+)?|FY\s?)?(\d{4})\b", re.IGNORECASE
)
_SCALE_OPS = frozenset({"change", "difference", "sum", "average", "bps", "points"})
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
_PERIOD_COUNT = re.compile(
    r"[\s-]*(?:fiscal\s+|financial\s+)?(?:years?|quarters?|months?|periods?)\b", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class _Operands:
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


def _operands(spans: Sequence[SpanFacts], percent: bool = False) -> _Operands:
    """The operands of the support spans; see :func:`_cited_operands`."""
    return _cited_operands(tuple((span.text, span.envelope) for span in spans), percent)


@lru_cache(maxsize=SPAN_CACHE_SIZE)
def _cited_operands(cited: tuple[tuple[str, str | None], ...], percent: bool) -> _Operands:
    """The figures of the spans given as (text, envelope), deduplicated, cached like the
    figures of each span: the claims of a receipt cite the same spans again and again. With
    ``percent``, plain figures are read as percentages (see :func:`_caption_percent`)."""
    out: dict[tuple[float, str, str | None, str | None], Operand] = {}
    writing: set[int] = set()
    for index, (text, envelope) in enumerate(cited):
        for written, period, scale, line, step in _figures(text, envelope):
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
            out[key] = Operand(amount, absolute, period, frozenset({index}), order)
    figures = tuple(out.values())[:MAX_OPERANDS]
    return _Operands(
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


def _unbracket(op: Operand) -> Operand:
    """The operand with a bracketed figure read as positive."""
    if not op.amount.bracketed:
        return op
    amount = replace(op.amount, value=abs(op.amount.value), mantissa=abs(op.amount.mantissa))
    absolute = abs(op.absolute) if op.absolute is not None else None
    return Operand(amount, absolute, op.period, op.spans, op.step)


def _uses_every_span(candidate: Candidate, writing: frozenset[int]) -> bool:
    """Whether a formula reads a figure of every cited span that writes one: a citation the
    computation does not need is not evidence for it."""
    used: set[int] = set()
    for op in candidate.uses:
        used |= op.spans
    return writing <= used


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
def _figures(text: str, envelope: str | None) -> tuple[_Figure, ...]:
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


def _caption_percent(claim_text: str, spans: Sequence[SpanFacts]) -> bool:
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


def tolerance(claim: ClaimedResult, relative: float) -> float:
    """How far a recomputed value may be from the claimed figure, in the claim's units."""
    target = abs(claim.target)
    half_unit = 0.5 * 10.0 ** (-claim.amount.decimals)
    return max(relative * target, min(half_unit, ROUNDING_CAP * target))


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
    writing = _operands(spans).writing
    return [count for count in counts if count == len(writing)]


def _claim_units(claim: ClaimedResult, ops: Sequence[Operand]) -> Iterator[ClaimedResult]:
    """The claim as written, and, when it has no scale word and every operand shares one
    declared scale (``in thousands``), the claim read in that unit, as the table writes it."""
    yield claim
    if claim.amount.scale is not None:
        return
    if any(op.amount.scale is not None or op.absolute is None for op in ops):
        return
    declared = {(op.absolute or 0.0) / op.amount.mantissa for op in ops if op.amount.mantissa}
    if len(declared) == 1 and (scale := declared.pop()) != 1.0:
        yield replace(claim, amount=replace(claim.amount, scale=scale))


def _claim_years(reading: Reading) -> tuple[int, int] | None:
    """The first and last year of the claim when it names two or more years (``from 2017 to
    2018``); a claim about one year (``rose in 2019``) may compare it with the year before."""
    years = {int(d.key[:4]) for d in reading.dates if d.key[:4].isdigit()}
    return (min(years), max(years)) if len(years) > 1 else None


def _within(candidate: Candidate, years: tuple[int, int] | None) -> bool:
    """Whether every operand with a known period lies within the years the claim names: a
    change "from 2017 to 2018" cannot be computed from the figures of 2018 and 2019."""
    if years is None:
        return True
    return all(
        years[0] <= int(op.period[:4]) <= years[1]
        for op in candidate.uses
        if op.period and op.period[:4].isdigit()
    )


def check_computation(
    claim_text: str | Reading,
    claim_type: ClaimType,
    spans: Sequence[SpanFacts],
    relative_tolerance: float = 0.005,
) -> tuple[CheckResult, Amount | None]:
    """Recompute a computational claim's result from its support spans.

    Returns the result and the claimed figure (for the anchors check to exempt). Pass
    ``recomputed`` (detail gives the formula); fail ``recompute_mismatch`` only when the claim
    names its operation, exactly two operands are cited and the result is wrong; otherwise skip
    ``not_computational``, ``unparseable`` (no figure in the claim), ``no_operands`` (no figure
    in the spans), ``sign_ambiguous`` (the result depends on how a bracketed figure is read)
    or ``not_reproduced`` (no formula reproduces an implicit or ambiguous claim).
    """
    if claim_type is not ClaimType.COMPUTATIONAL:
        return CheckResult(
            CHECK, Outcome.SKIP, "not_computational", "not a computational claim"
        ), None
    reading = read_text(claim_text) if isinstance(claim_text, str) else claim_text
    claim, _ = read_claim(reading)
    if claim is None:
        return CheckResult(CHECK, Outcome.SKIP, "unparseable", "the claim states no figure"), None
    if claim.sign < 0 and claim.amount.mantissa < 0:
        # "decreased by -45": a double negative, more likely a slip than an increase. A
        # negative figure after an upward word ("a percentage increase of -21.9%") is how
        # reports write a fall, and is read as written.
        return CheckResult(
            CHECK,
            Outcome.SKIP,
            "sign_conflict",
            f"the claim's direction word says down and its figure {claim.amount.text} is "
            "written negative",
        ), claim.amount
    operands = _operands(spans)
    if (
        claim.amount.kind == "percent"
        and operands.figures
        and not any(op.amount.kind == "percent" for op in operands.figures)
        and _caption_percent(reading.text, spans)
    ):
        operands = _operands(spans, percent=True)
    ops, writing = operands.figures, operands.writing
    if not ops:
        return CheckResult(
            CHECK, Outcome.SKIP, "no_operands", "the support spans contain no figures"
        ), claim.amount
    operations = (
        (claim.operation,) if claim.operation else ("points",) if claim.points else OPEN_OPERATIONS
    )
    allowed = tolerance(claim, relative_tolerance)
    years = _claim_years(reading)
    tried: list[Candidate] = []
    ambiguous = False
    negative_only: tuple[str, Candidate] | None = None
    opposite = False
    for unit in _claim_units(claim, ops):
        for operation in operations:
            # Both readings of bracketed figures are tried.
            for candidate, other in operands.candidates(FORMULAS[operation], unit):
                if not _uses_every_span(candidate, writing) or not _within(candidate, years):
                    continue
                hit = abs(candidate.value - claim.target) <= allowed
                other_hit = abs(other.value - claim.target) <= allowed
                if hit and other_hit:
                    return _recomputed(operation, candidate, claim, allowed, ""), claim.amount
                if (
                    claim.target
                    and min(abs(candidate.value + claim.target), abs(other.value + claim.target))
                    <= allowed
                ):
                    opposite = True
                if hit and negative_only is None and not _negative_base(candidate):
                    negative_only = (operation, candidate)
                ambiguous = ambiguous or hit != other_hit
                tried.append(candidate)
    if negative_only is not None and not opposite:
        operation, candidate = negative_only
        note = "; bracketed figures read as negatives, and no reading gives the opposite sign"
        return _recomputed(operation, candidate, claim, allowed, note), claim.amount
    nearest = min(tried, key=lambda c: abs(c.value - claim.target), default=None)
    found = f"; nearest {nearest.formula} = {nearest.value:.6g}" if nearest else ""
    detail = (
        f"no {claim.operation or 'formula'} over {len(ops)} figure(s) "
        f"({', '.join(op.label for op in ops)}) gives {claim.target:g}{found}"
    )
    other_unit = _other_unit(claim, operands, years, allowed)
    if other_unit is not None:
        return CheckResult(
            CHECK,
            Outcome.FAIL,
            "unit_mismatch",
            f"the claim states {claim.amount.text} as {_UNIT_NAMES[claim.operation or '']}, "
            f"but the cited figures give it as {other_unit}",
        ), claim.amount
    if ambiguous:
        return CheckResult(
            CHECK,
            Outcome.SKIP,
            "sign_ambiguous",
            f"the result depends on how the bracketed figures are read: {detail}",
        ), claim.amount
    unambiguous = claim.explicit and len(ops) == 2 and nearest is not None
    if unambiguous and claim.operation in _SCALE_OPS | {"percent_change"}:
        unambiguous = claim.sign == 0 or any(ordered_pairs(ops))
    if unambiguous:
        return CheckResult(CHECK, Outcome.FAIL, "recompute_mismatch", detail), claim.amount
    return CheckResult(CHECK, Outcome.SKIP, "not_reproduced", detail), claim.amount


_OTHER_UNITS = {"points": ("bps", "percent_change"), "bps": ("points",)}
"""For a change claimed in percentage points or basis points, the units it may be confused
with: basis points and relative change for points, points for basis points."""
_UNIT_NAMES = {
    "points": "a change in percentage points",
    "bps": "a change in basis points",
    "percent_change": "a relative change in percent",
}


def _other_unit(
    claim: ClaimedResult, operands: _Operands, years: tuple[int, int] | None, allowed: float
) -> str | None:
    """The unit in which the cited figures give a change claimed in another (``290
    percentage points`` where the figures fell 290 basis points, ``2.9 basis points`` where
    they fell 2.9 points), under both readings of any bracketed figure; ``None`` when none
    does. The relative change a points claim may be confused with is only the relative
    change: the points change, which :func:`_percent_changes` also yields, was tried."""
    for operation in _OTHER_UNITS.get(claim.operation or "", ()):
        probe = claim
        if operation == "points":
            # The claimed figure read as points, for the formula over percentages.
            probe = replace(claim, amount=replace(claim.amount, kind="percent"))
        for candidate, other in operands.candidates(FORMULAS[operation], probe):
            if operation == "percent_change" and candidate.base is None:
                continue
            if not _uses_every_span(candidate, operands.writing) or not _within(candidate, years):
                continue
            if max(abs(candidate.value - claim.target), abs(other.value - claim.target)) <= allowed:
                return f"{_UNIT_NAMES[operation]} ({candidate.formula} = {candidate.value:.6g})"
    return None


def _negative_base(candidate: Candidate) -> bool:
    """Whether a percent change starts from a negative figure: reports write such a change
    as not meaningful, since its sign has no agreed reading."""
    return candidate.base is not None and candidate.base.amount.mantissa < 0


def _recomputed(
    operation: str, candidate: Candidate, claim: ClaimedResult, allowed: float, note: str
) -> CheckResult:
    return CheckResult(
        CHECK,
        Outcome.PASS,
        "recomputed",
        f"{operation}: {candidate.formula} = {candidate.value:.6g}, claimed "
        f"{claim.amount.text} (within {allowed:.3g}){note}",
    )
