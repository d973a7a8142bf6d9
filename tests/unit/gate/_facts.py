"""Builders of span facts and claims shared by the gate tests."""

from __future__ import annotations

from ledger.gate import (
    Binding,
    ClaimDraft,
    ClaimType,
    Outcome,
    Role,
    SpanFacts,
    Status,
    Verdict,
    judge,
)


def span(
    span_id: str,
    text: str,
    envelope: str | None = None,
    *,
    exists: bool = True,
    in_pool: bool = True,
    in_force: bool = True,
    withdrawn: bool = False,
) -> SpanFacts:
    """Facts of a span; by default it exists, is in the pool and in force."""
    return SpanFacts(span_id, exists, in_pool, in_force, withdrawn, text, envelope)


def claim(
    text: str,
    *span_ids: str,
    type: ClaimType = ClaimType.FACTUAL,
    material: bool = True,
    role: Role = Role.PRIMARY,
    quote: str | None = None,
) -> ClaimDraft:
    """A claim bound to ``span_ids`` in one role (the first binding carries ``quote``)."""
    bindings = tuple(
        Binding(sid, role, quote if i == 0 else None) for i, sid in enumerate(span_ids)
    )
    return ClaimDraft(text, type=type, material=material, bindings=bindings)


def row_cells(label: str, *figures: tuple[str, str]) -> list[SpanFacts]:
    """Cells of one table row: (column header, figure) pairs."""
    return [
        span(f"{label}{i}", text, f"Table \u2014 {label}, {head}: {text}")
        for i, (head, text) in enumerate(figures)
    ]


def judged(text: str, *spans: str, quote: str | None = None) -> Verdict:
    """The verdict on a claim citing each of ``spans`` (``s0``, ``s1``, ...)."""
    facts = {f"s{i}": span(f"s{i}", t) for i, t in enumerate(spans)}
    return judge(claim(text, *facts, quote=quote), facts)


def result(verdict: Verdict, check: str) -> tuple[Outcome, str, str]:
    """Outcome, reason and detail of one check of ``verdict``."""
    found = next(c for c in verdict.checks if c.check == check)
    return found.outcome, found.reason, found.detail


def rejection(claimed: str, cited: str, check: str) -> tuple[str, str]:
    """The reason and detail of the failed ``check`` that rejects ``claimed`` over ``cited``."""
    verdict = judged(claimed, cited)
    assert verdict.status is Status.REJECTED, verdict.checks
    outcome, reason, detail = result(verdict, check)
    assert outcome is Outcome.FAIL
    return reason, detail


def unverified(claimed: str, cited: str, check: str) -> tuple[str, str]:
    """The reason and detail of the ``check`` that leaves ``claimed`` over ``cited``
    unverified (failed or skipped): no contradiction, and no support either."""
    verdict = judged(claimed, cited)
    assert verdict.status is Status.UNVERIFIED, verdict.checks
    outcome, reason, detail = result(verdict, check)
    assert outcome is not Outcome.PASS
    return reason, detail


STACKED_TABLE = [
    ["", "As of December 31, 2019", ""],
    ["", "Cost", "Value"],
    ["Total", "$229", "$223"],
    ["", "As of December 31, 2018", ""],
    ["", "Cost", "Value"],
    ["Total", "$171", "$179"],
]
"""A TAT-QA-shaped table that stacks 2018 under 2019, each period with its own header rows."""
