"""The computation check: recompute a computational claim's result from the figures it cites.

Operands are the amounts of the support spans: a table cell gives the amount in its text and
takes its period (the last date or year of its envelope before the value; with a quarter,
``Fiscal 2019 Second Quarter`` -> ``2019-Q2``) and its scale (``in thousands`` in the envelope
or text) from the envelope; a plain figure of a cell whose row label or column header gives
percent (``ROFE (%)``, ``As percentage of net revenues``; not the rate of ``4.875% Senior
Notes``) is a percentage, as is one of a cell whose table title names ``the percentage of
<word>`` that a percentage claim names too (:func:`caption_percent`). A sentence gives
every amount it writes, each with the year that follows it (``$5.1 million in 2019``), if
any. Equal figures of two cells are two operands unless the cells share their row label and
column header; a sentence figure equal in value, kind and period to a cell's is that cell's
figure.

A sentence that writes ``from <figure> to <figure>`` (``decreased from 45.2% to 42.3%``)
orders those two figures, old then new, whatever their periods. A downward direction word with
a negative figure (``decreased by -45``) is a double negative and skips ``sign_conflict``.

A sentence's figure is read for a claim only where the claim names what it is a figure of
(:func:`ledger.gate.computation.operands.sentence_subjects`): ``Revenue rose by 25%`` is not
computed from the ``$2.0 million`` and ``$2.5 million`` of ``Revenue rose from $4.0 million to $4.5
million, while costs rose from $2.0 million to $2.5 million``, as a cell's figure is read only
on a line the claim names (the support check's ``support_line_unnamed``).

Every cited span that writes a figure must be used by the formula (a figure two spans write
alike counts for both): a citation the computation does not need is not evidence for it. A
cell's period may also be a fiscal year without a calendar year (``FY19``, ``F19``). When the
claim names two or more years (``from 2017 to 2018``), every operand with a known period must
lie within them: a change from 2017 to 2018 is not computed from the figures of 2018 and 2019.

Operands are read by :mod:`ledger.gate.computation.operands`, which of them a claim admits by
:mod:`ledger.gate.computation.scope`. Formulas tried (:mod:`ledger.gate.computation.formulas`;
bounded: at most ``MAX_OPERANDS`` operands, subsets of at most ``MAX_SUBSET`` for sums and
averages):

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
- the change of a ratio of two lines from one period to the next, for a claim that names a
  ratio (``The change in current ratio from 2018 to 2019``);
- ratio ``a / b`` (as a percentage when the claim is one), and the share of a sum in a total
  ``(a + b) / c`` over at most ``MAX_SHARE_OPERANDS`` operands; sum; average (over all
  operands too when there are more than ``MAX_SUBSET``); a *total percentage*: the sum of
  percentages, or a ratio when the figures are not all percentages;
- product ``a x b`` of two figures as written, a percentage as its fraction (``shares x
  price``, ``53% of revenue``), only for a claim that names no operation, of figures without
  scale words of their own.

A figure in parentheses, ``(1,102)``, is read both as negative and as positive, unless its
cell's label writes the negative side of its measure in brackets (``Operating income (loss)``,
``Increase (decrease)``: :func:`ledger.gate.computation.operands.signed_label`), which makes
it negative.
An amount claimed in a currency is not computed from figures written in another; a sum or an
average that the claim says is over ``the three years`` uses that many figures
(:func:`counted_periods`); a claim about fiscal years reads a period ending in the first week
of January as the fiscal year before (``January 3, 2020`` closes fiscal 2019). A formula
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

from collections.abc import Iterator, Sequence
from dataclasses import replace

from ledger.gate.anchors.numbers import Amount
from ledger.gate.anchors.reading import Reading, read_text
from ledger.gate.computation.claimed import ClaimedResult, claimed_bound, meets, read_claim
from ledger.gate.computation.formulas import (
    FORMULAS,
    OPEN_OPERATIONS,
    Candidate,
    Operand,
    ordered_pairs,
)
from ledger.gate.computation.operands import CitedOperands, caption_percent, operands_of
from ledger.gate.computation.scope import _admissible, _Scope, counted_periods
from ledger.gate.model import CheckResult, ClaimType, Outcome, SpanFacts

CHECK = "computation"
ROUNDING_CAP = 0.05
"""The largest relative error that rounding of the claimed figure may excuse."""

_AGGREGATES = frozenset({"sum", "average"})
_SCALE_OPS = frozenset({"change", "difference", "sum", "average", "bps", "points"})

_NOT_COMPUTATIONAL = CheckResult(
    CHECK, Outcome.SKIP, "not_computational", "not a computational claim"
)
"""The computation result of every claim that is not computational (results are immutable)."""


def tolerance(claim: ClaimedResult, relative: float) -> float:
    """How far a recomputed value may be from the claimed figure, in the claim's units."""
    target = abs(claim.target)
    half_unit = 0.5 * 10.0 ** (-claim.amount.decimals)
    return max(relative * target, min(half_unit, ROUNDING_CAP * target))


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
        return _NOT_COMPUTATIONAL, None
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
    operands = operands_of(spans)
    if (
        claim.amount.kind == "percent"
        and operands.figures
        and not any(op.amount.kind == "percent" for op in operands.figures)
        and caption_percent(reading.text, spans)
    ):
        operands = operands_of(spans, percent=True)
    ops, writing = operands.figures, operands.writing
    if not ops:
        return CheckResult(
            CHECK, Outcome.SKIP, "no_operands", "the support spans contain no figures"
        ), claim.amount
    operations = (
        (claim.operation,) if claim.operation else ("points",) if claim.points else OPEN_OPERATIONS
    )
    allowed = tolerance(claim, relative_tolerance)
    bound = claimed_bound(reading.text, claim.amount)
    scope = _Scope.of(reading)
    count = counted_periods(reading.text)
    tried: list[Candidate] = []
    ambiguous = False
    negative_only: tuple[str, Candidate] | None = None
    opposite = negative_base = False
    target = claim.target
    for unit in _claim_units(claim, ops):
        for operation in operations:
            # Both readings of bracketed figures are tried.
            for candidate, other in operands.candidates(FORMULAS[operation], unit):
                if not _admissible(candidate, writing, scope):
                    continue
                if count and operation in _AGGREGATES and len(candidate.uses) != count:
                    # "The average over the three years" is not the average of two.
                    continue
                hit = meets(candidate.value, target, allowed, bound)
                other_hit = (
                    hit if other is candidate else meets(other.value, target, allowed, bound)
                )
                if hit and other_hit and not _negative_base(candidate):
                    return _recomputed(operation, candidate, claim, allowed, ""), claim.amount
                flipped = bool(target) and (
                    meets(candidate.value, -target, allowed, bound)
                    or meets(other.value, -target, allowed, bound)
                )
                # A percent change from a negative figure gives the claim's figure with one
                # sign or the other by convention alone: neither reproduces nor contradicts.
                negative_base = negative_base or ((hit or flipped) and _negative_base(candidate))
                opposite = opposite or flipped
                if hit and negative_only is None and not _negative_base(candidate):
                    negative_only = (operation, candidate)
                ambiguous = ambiguous or hit != other_hit
                tried.append(candidate)
    if negative_only is not None and not opposite:
        operation, candidate = negative_only
        note = "; bracketed figures read as negatives, and no reading gives the opposite sign"
        return _recomputed(operation, candidate, claim, allowed, note), claim.amount
    nearest = min(tried, key=lambda c: abs(c.value - target), default=None)
    found = f"; nearest {nearest.formula} = {nearest.value:.6g}" if nearest else ""
    detail = (
        f"no {claim.operation or 'formula'} over {len(ops)} figure(s) "
        f"({', '.join(op.label for op in ops)}) gives {claim.target:g}{found}"
    )
    other_unit = _other_unit(claim, operands, scope, allowed)
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
    if negative_base:
        return CheckResult(
            CHECK,
            Outcome.SKIP,
            "not_reproduced",
            f"only a percent change from a negative figure gives it, with one sign or the "
            f"other, and such a change has no agreed sign: "
            f"{detail}",
        ), claim.amount
    # A figure that is the result rounded to the digits the claim writes, too coarsely to
    # check (``-0.1%`` for -0.08%), is not reproduced, and not wrong either.
    unambiguous = (
        claim.explicit
        and len(ops) == 2
        and nearest is not None
        and not _rounds_to(nearest.value, claim)
    )
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
    claim: ClaimedResult, operands: CitedOperands, scope: _Scope, allowed: float
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
            if not _admissible(candidate, operands.writing, scope):
                continue
            if max(abs(candidate.value - claim.target), abs(other.value - claim.target)) <= allowed:
                return f"{_UNIT_NAMES[operation]} ({candidate.formula} = {candidate.value:.6g})"
    return None


def _rounds_to(value: float, claim: ClaimedResult) -> bool:
    """Whether ``value`` rounds to the claimed figure at the digits the claim writes."""
    return abs(value - claim.target) <= 0.5 * 10.0 ** (-claim.amount.decimals)


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
