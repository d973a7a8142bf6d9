"""The lexical gate: token-intersection recall with domain stop words removed (seed 000)."""

from __future__ import annotations

import pytest

from ledger.errors import InvalidInput
from ledger.retrieval.gate import LexicalGate, lexical_recall
from ledger.retrieval.terms import gate_terms, terms


def test_net_income_does_not_pass_against_net_sales_once_net_is_a_stop_word() -> None:
    span = terms("Net sales rose to $4.5 million.")
    assert lexical_recall(terms("net income"), span) == 0.5
    assert lexical_recall(gate_terms("net income"), span) == 0.0
    assert not LexicalGate(0.2).passes(gate_terms("net income"), span)


def test_recall_counts_each_query_term_at_most_as_often_as_the_span_has_it() -> None:
    assert lexical_recall(["a", "a", "b"], ["a", "c"]) == pytest.approx(1 / 3)
    assert lexical_recall(["a", "a", "b"], ["a", "a", "b", "b"]) == 1.0


def test_recall_does_not_shrink_with_a_long_span_as_jaccard_would() -> None:
    long_span = terms("Operating income " + "segment detail " * 50)
    assert lexical_recall(gate_terms("operating income"), long_span) == 1.0


def test_a_query_without_terms_has_zero_recall() -> None:
    assert lexical_recall([], ["a"]) == 0.0


def test_threshold_zero_passes_everything() -> None:
    assert LexicalGate(0.0).passes(["a"], ["b"])


@pytest.mark.parametrize("threshold", [-0.1, 1.5, float("nan")])
def test_rejects_a_threshold_outside_the_unit_interval(threshold: float) -> None:
    with pytest.raises(InvalidInput, match=r"gate threshold must be in \[0, 1\]"):
        LexicalGate(threshold)
