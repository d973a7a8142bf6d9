"""Builders of span facts and claims shared by the gate tests."""

from __future__ import annotations

from ledger.gate import Binding, ClaimDraft, ClaimType, Role, SpanFacts


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
