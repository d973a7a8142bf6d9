"""The span diff between two versions of a source."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from api.console.diff import span_diff


def test_a_rewritten_span_marks_only_the_changed_words() -> None:
    (change,) = span_diff(["Returns within 30 days."], ["Returns within 14 days."])
    assert change.kind == "rewritten"
    assert [t for t, changed in change.old if changed] == ["30"]
    assert [t for t, changed in change.new if changed] == ["14"]


def test_unrelated_spans_are_removed_and_added_not_paired() -> None:
    changes = span_diff(["A", "Returns within 30 days."], ["A", "Exchanges are free."])
    assert [c.kind for c in changes] == ["equal", "removed", "added"]
    assert changes[0].count == 1


def test_an_inserted_span_before_a_rewrite_is_added_in_place() -> None:
    changes = span_diff(
        ["Refunds go to the card."], ["New rule here.", "Refunds go to the same card."]
    )
    assert [c.kind for c in changes] == ["added", "rewritten"]


@given(st.lists(st.text(max_size=12), max_size=6), st.lists(st.text(max_size=12), max_size=6))
def test_the_diff_accounts_for_every_span_of_both_versions(old: list[str], new: list[str]) -> None:
    changes = span_diff(old, new)
    kept = sum(c.count for c in changes if c.kind == "equal")
    removed = sum(1 for c in changes if c.kind in ("removed", "rewritten"))
    added = sum(1 for c in changes if c.kind in ("added", "rewritten"))
    assert kept + removed == len(old)
    assert kept + added == len(new)
