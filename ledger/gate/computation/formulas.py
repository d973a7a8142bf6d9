"""The formulas the computation check tries over the cited figures, one generator per operation.

Each generator yields :class:`Candidate` values for a claimed result and a list of operands; see
:mod:`ledger.gate.computation.check` for which formulas are tried and when a candidate passes. Both
readings of bracketed figures are enumerated by calling a generator twice, so every generator
enumerates the same combinations in the same order for operand lists of the same length.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ledger.gate.anchors.numbers import Amount
from ledger.gate.computation.claimed import ClaimedResult

MAX_SUBSET = 4
"""The largest subset of operands a sum or an average is tried over."""
MAX_SHARE_OPERANDS = 6
"""The most operands for which a ratio of a sum to a total is tried."""


@dataclass(frozen=True, slots=True)
class Operand:
    """One figure of the evidence with the period it belongs to, if known, the indexes of the
    support spans that write it and, for a figure of a sentence that writes ``from <figure> to
    <figure>``, its ``step``: (span index, the pair's place, 0 for old or 1 for new)."""

    amount: Amount
    absolute: float | None
    period: str | None
    spans: frozenset[int] = frozenset()
    step: tuple[int, int, int] | None = None
    row: str | None = None
    """A cell's first row label: the line of its table it is on."""
    subject: frozenset[str] | None = None
    """For a figure of a sentence, the words of what it is a figure of that no other figure of
    the sentence has (``costs`` in ``..., while costs rose from $2.0 million to $2.5
    million``: :func:`ledger.gate.computation.operands.sentence_subjects`)."""
    rivals: tuple[frozenset[str], ...] = ()
    """For a figure of a sentence, the subjects of the other figures' groups."""
    signed: bool = False
    """A cell whose row label or column header writes its negative side in brackets
    (``Operating income (loss)``): its bracketed figure is negative, never a magnitude."""

    @property
    def label(self) -> str:
        return f"{self.amount.text} [{self.period}]" if self.period else self.amount.text


class Candidate(NamedTuple):
    """A formula's value over some operands; ``base`` is the old figure of a percent change.
    (A named tuple: many are made per claim, and a tuple is made several times faster than a
    frozen data class.)"""

    value: float
    formula: str
    uses: tuple[Operand, ...]
    base: Operand | None = None


def _levels(claim: ClaimedResult, ops: Sequence[Operand]) -> list[float] | None:
    """Operand values in the claim's units for scale-bearing operations, or ``None``: also
    when the claim names a currency that a figure names otherwise (``rose by \u20ac0.5
    million`` is not computed from ``$4.0 million`` and ``$4.5 million``)."""
    if any(op.amount.kind != claim.amount.kind for op in ops):
        return None
    currency = claim.amount.currency
    if currency and any(op.amount.currency not in (None, currency) for op in ops):
        return None
    if all(op.absolute is not None for op in ops):
        divisor = claim.amount.scale or 1.0
        return [(op.absolute or 0.0) / divisor for op in ops]
    if all(op.absolute is None or op.amount.scale is None for op in ops):
        # Declared scales on some cells only (a header note on one column): as written.
        return [op.amount.mantissa for op in ops]
    return None


def _plain(ops: Sequence[Operand]) -> list[float] | None:
    """Operand values for scale-free operations (ratios): all absolute or all as written."""
    if len({op.amount.kind for op in ops}) != 1:
        return None
    if all(op.absolute is not None for op in ops):
        return [op.absolute or 0.0 for op in ops]
    return [op.amount.mantissa for op in ops]


def ordered_pairs(ops: Sequence[Operand]) -> Iterator[tuple[Operand, Operand]]:
    """(new, old) pairs whose periods say which came later, or which one sentence writes as
    ``from <old> to <new>``."""
    for a, b in itertools.permutations(ops, 2):
        if a.period and b.period:
            if _later(a.period, b.period):
                yield a, b
        elif a.step and b.step and a.step[:2] == b.step[:2] and a.step[2] > b.step[2]:
            yield a, b


def _later(a: str, b: str) -> bool:
    """Whether period ``a`` is later than ``b``: by year, or by the whole key at equal precision."""
    if a[:4] != b[:4]:
        return a[:4] > b[:4]
    return len(a) == len(b) and a > b


def period_groups(ops: Sequence[Operand]) -> tuple[list[Operand], list[Operand]] | None:
    """The operands as the lines of a later and an earlier period, when every operand has a
    period, there are exactly two periods whose order is known, and each has the same number
    (two or more) of operands: ``International`` and ``Foodservice`` in fiscal 2019 and in
    fiscal 2018."""
    if len(ops) < 4 or any(op.period is None for op in ops):
        return None
    periods = sorted({op.period or "" for op in ops})
    if len(periods) != 2:
        return None
    old, new = periods
    if not _later(new, old):
        new, old = old, new
        if not _later(new, old):
            return None
    news = [op for op in ops if op.period == new]
    olds = [op for op in ops if op.period == old]
    return (news, olds) if len(news) == len(olds) else None


def _sum_label(ops: Sequence[Operand]) -> str:
    return "(" + " + ".join(op.label for op in ops) + ")"


def _changes_of_sums(claim: ClaimedResult, ops: Sequence[Operand]) -> Iterator[Candidate]:
    """The change of a sum of lines from one period to the next: ``(a19 + b19) - (a18 +
    b18)``."""
    groups = period_groups(ops)
    if groups is None:
        return
    news, olds = groups
    levels = _levels(claim, (*news, *olds))
    if levels:
        total_new, total_old = sum(levels[: len(news)]), sum(levels[len(news) :])
        label = f"{_sum_label(news)} - {_sum_label(olds)}"
        yield Candidate(total_new - total_old, label, (*news, *olds))


def _ratio_changes(claim: ClaimedResult, ops: Sequence[Operand]) -> Iterator[Candidate]:
    """The change of a ratio of two lines from one period to the next, for a claim that
    names a ratio (``The change in current ratio from 2018 to 2019``: ``a19 / b19 - a18 /
    b18``, each line's cells on one row label), either way round."""
    groups = period_groups(ops) if claim.of_ratio and len(ops) == 4 else None
    if groups is None:
        return
    news, earlier = groups
    by_row = {op.row: op for op in earlier if op.row is not None}
    paired = [by_row.get(op.row or "") for op in news]
    if None in paired or len(by_row) != 2:
        return
    olds = [op for op in paired if op is not None]
    for a, b in ((0, 1), (1, 0)):
        values = _plain((news[a], news[b], olds[a], olds[b]))
        if values and values[1] and values[3]:
            label = f"{news[a].label} / {news[b].label} - {olds[a].label} / {olds[b].label}"
            uses = (news[a], news[b], olds[a], olds[b])
            yield Candidate(values[0] / values[1] - values[2] / values[3], label, uses)


def _changes(claim: ClaimedResult, ops: Sequence[Operand]) -> Iterator[Candidate]:
    yield from _ratio_changes(claim, ops)
    ordered = [] if claim.operation == "difference" else list(ordered_pairs(ops))
    for new, old in ordered:
        levels = _levels(claim, (new, old))
        if levels:
            yield Candidate(levels[0] - levels[1], f"{new.label} - {old.label}", (new, old))
    if ordered:
        yield from _changes_of_sums(claim, ops)
    if ordered or claim.operation != "difference" or claim.sign or claim.target < 0:
        return
    for a, b in itertools.combinations(ops, 2):
        levels = _levels(claim, (a, b))
        if levels:
            yield Candidate(abs(levels[0] - levels[1]), f"|{a.label} - {b.label}|", (a, b))


def _percent_changes(claim: ClaimedResult, ops: Sequence[Operand]) -> Iterator[Candidate]:
    ordered = list(ordered_pairs(ops))
    pairs = ordered or list(itertools.permutations(ops, 2))
    factor = 100.0 if claim.amount.kind == "percent" else 1.0
    for new, old in pairs:
        values = _plain((new, old))
        if values and values[1] != 0:
            change = (values[0] - values[1]) / abs(values[1]) * factor
            yield Candidate(change, f"({new.label} - {old.label}) / {old.label}", (new, old), old)
            if new.amount.bracketed and old.amount.bracketed:
                # Two bracketed figures: the change of their magnitudes, new / old - 1, which
                # both readings of the brackets give alike ((238) after (168): +41.7%).
                growth = (values[0] / values[1] - 1) * factor
                yield Candidate(growth, f"{new.label} / {old.label} - 1", (new, old))
    groups = period_groups(ops) if ordered else None
    if groups is not None:
        news, olds = groups
        values = _plain((*news, *olds))
        if values:
            total_old = sum(values[len(news) :])
            # A base that sums to zero under one reading of the brackets gives no change; the
            # candidate is still yielded (as infinite), so that both readings enumerate alike.
            change = (
                (sum(values[: len(news)]) - total_old) / abs(total_old) * factor
                if total_old
                else math.inf
            )
            # Any bracketed figure in the base makes it a possibly negative base.
            base = min(olds, key=lambda op: op.amount.mantissa)
            label = f"({_sum_label(news)} - {_sum_label(olds)}) / {_sum_label(olds)}"
            yield Candidate(change, label, (*news, *olds), base)
    if claim.amount.kind == "percent":
        # A change between two percentages may be stated in percentage points.
        yield from _changes(claim, ops)


def _bps(claim: ClaimedResult, ops: Sequence[Operand]) -> Iterator[Candidate]:
    percents = [op for op in ops if op.amount.kind == "percent"]
    ordered = list(ordered_pairs(percents))
    for new, old in ordered:
        yield Candidate(
            (new.amount.mantissa - old.amount.mantissa) * 100,
            f"({new.label} - {old.label}) x 100 bps",
            (new, old),
        )
    if ordered or claim.sign or claim.target < 0:
        return
    for a, b in itertools.combinations(percents, 2):
        yield Candidate(
            abs(a.amount.mantissa - b.amount.mantissa) * 100,
            f"|{a.label} - {b.label}| x 100 bps",
            (a, b),
        )


def _ratios(claim: ClaimedResult, ops: Sequence[Operand]) -> Iterator[Candidate]:
    factor = 100.0 if claim.amount.kind == "percent" else 1.0
    for a, b in itertools.permutations(ops, 2):
        values = _plain((a, b))
        if values and values[1] != 0:
            yield Candidate(values[0] / values[1] * factor, f"{a.label} / {b.label}", (a, b))
    if len(ops) > MAX_SHARE_OPERANDS:
        return
    # The share of a sum in a total: (a + b) / c, "deferred revenue and accrued warranty over
    # gross deferred tax assets".
    for whole in ops:
        parts = [op for op in ops if op is not whole]
        for size in range(2, min(MAX_SUBSET - 1, len(parts)) + 1):
            for subset in itertools.combinations(parts, size):
                values = _plain((*subset, whole))
                if values and values[-1] != 0:
                    joined = " + ".join(op.label for op in subset)
                    yield Candidate(
                        sum(values[:-1]) / values[-1] * factor,
                        f"({joined}) / {whole.label}",
                        (*subset, whole),
                    )


def _products(claim: ClaimedResult, ops: Sequence[Operand]) -> Iterator[Candidate]:
    """Products of two figures as written, a percentage as its fraction (``shares x price``,
    ``53% of $23,406``); only between figures without a scale word of their own, and for a
    claim of a plain amount."""
    if claim.amount.kind != "number":
        return
    for a, b in itertools.combinations(ops, 2):
        if a.amount.scale or b.amount.scale or "bps" in (a.amount.kind, b.amount.kind):
            continue
        if a.amount.kind == b.amount.kind == "percent":
            continue
        value = _fraction(a) * _fraction(b)
        if claim.amount.scale and a.absolute is None and b.absolute is None:
            value /= claim.amount.scale
        yield Candidate(value, f"{a.label} x {b.label}", (a, b))


def _fraction(op: Operand) -> float:
    return op.amount.mantissa / 100 if op.amount.kind == "percent" else op.amount.mantissa


def _aggregates(claim: ClaimedResult, ops: Sequence[Operand], mean: bool) -> Iterator[Candidate]:
    """Sums or averages over subsets of at most :data:`MAX_SUBSET` operands, and over all of
    them when there are more (``the average operating income from 2015 to 2019``)."""
    subsets: Iterator[tuple[Operand, ...]] = itertools.chain.from_iterable(
        itertools.combinations(ops, size) for size in range(2, min(MAX_SUBSET, len(ops)) + 1)
    )
    if len(ops) > MAX_SUBSET:
        subsets = itertools.chain(subsets, [tuple(ops)])
    for subset in subsets:
        levels = _levels(claim, subset)
        if levels:
            joined = " + ".join(op.label for op in subset)
            if mean:
                size = len(subset)
                yield Candidate(sum(levels) / size, f"({joined}) / {size}", subset)
            else:
                yield Candidate(sum(levels), joined, subset)


def _percent_totals(claim: ClaimedResult, ops: Sequence[Operand]) -> Iterator[Candidate]:
    """A *total percentage* (``the total percentage of revenue from Apple and Huawei``) is the
    sum of the cited percentages when they all are percentages, as is the claim; otherwise it
    is a ratio, ``the total percentage`` of one figure in another."""
    if claim.amount.kind == "percent" and all(op.amount.kind == "percent" for op in ops):
        yield from _aggregates(claim, ops, mean=False)
    else:
        yield from _ratios(claim, ops)


Formula = Callable[[ClaimedResult, Sequence[Operand]], Iterator[Candidate]]
"""A generator of the candidate values of one operation for a claim and its operands."""

FORMULAS: dict[str, Formula] = {
    "change": _changes,
    "difference": _changes,
    "percent_change": _percent_changes,
    "points": _changes,
    "bps": _bps,
    "ratio": _ratios,
    "sum": lambda claim, ops: _aggregates(claim, ops, mean=False),
    "average": lambda claim, ops: _aggregates(claim, ops, mean=True),
    "product": _products,
    "percent_total": _percent_totals,
}
"""Formulas by operation; ``product`` is tried only for a claim that names no operation,
``percent_total`` only for one that names it."""

OPEN_OPERATIONS = tuple(op for op in FORMULAS if op not in ("percent_total", "points"))
"""The operations tried for a claim that names none."""
