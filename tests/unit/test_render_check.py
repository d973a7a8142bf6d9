"""Render integrity of a rendered answer's citation markers."""

from __future__ import annotations

from ledger.gate import Outcome
from ledger.receipts.render_check import check_render

A = "sp_" + "a" * 24
B = "sp_" + "b" * 24


def test_markers_bound_by_committed_claims_resolve() -> None:
    result = check_render(f"Revenue rose [{A}]. Costs fell [{B}].", {A, B})
    assert (result.outcome, result.reason) == (Outcome.PASS, "markers_resolved")


def test_a_marker_no_committed_claim_binds_fails() -> None:
    result = check_render(f"Revenue rose [{A}]. Costs fell [{B}].", {A})
    assert (result.outcome, result.reason) == (Outcome.FAIL, "marker_unbound")
    assert B in result.detail


def test_numeric_markers_never_resolve() -> None:
    result = check_render("Revenue rose [1].", {A})
    assert (result.outcome, result.reason) == (Outcome.FAIL, "marker_not_a_span")


def test_an_answer_without_markers_is_skipped() -> None:
    assert check_render("No citations here.", set()).outcome == Outcome.SKIP
