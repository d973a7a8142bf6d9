"""Reciprocal Rank Fusion against a naive reference and its defining properties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.errors import InvalidInput
from ledger.retrieval.fusion import RRF_K, reciprocal_rank_fusion


def _reference(rankings: dict[str, list[str]], k: int) -> dict[str, float]:
    """RRF written straight from the formula: sum of 1 / (k + rank)."""
    keys = {key for ranking in rankings.values() for key in ranking}
    return {
        key: sum(
            1 / (k + ranking.index(key) + 1) for ranking in rankings.values() if key in ranking
        )
        for key in keys
    }


def test_uses_sixty_as_the_constant() -> None:
    assert RRF_K == 60
    fused = dict(reciprocal_rank_fusion({"a": ["x", "y"], "b": ["y"]}))
    assert fused["x"] == pytest.approx(1 / 61)
    assert fused["y"] == pytest.approx(1 / 62 + 1 / 61)


def test_a_document_both_rankers_hold_beats_one_only_a_single_ranker_puts_first() -> None:
    fused = reciprocal_rank_fusion({"bm25": ["a", "b"], "dense": ["c", "b"]})
    assert fused[0][0] == "b"


def test_ties_are_broken_by_best_rank_then_key() -> None:
    fused = reciprocal_rank_fusion({"bm25": ["b", "a"], "dense": ["a", "b"]})
    assert [key for key, _ in fused] == ["a", "b"]


def test_weights_scale_each_ranking() -> None:
    fused = dict(reciprocal_rank_fusion({"a": ["x"], "b": ["y"]}, weights={"a": 2.0}))
    assert fused["x"] == pytest.approx(2 / 61)
    assert fused["y"] == pytest.approx(1 / 61)


def test_rejects_a_negative_constant() -> None:
    with pytest.raises(InvalidInput, match="RRF constant must be >= 0"):
        reciprocal_rank_fusion({"a": ["x"]}, k=-1)


_ranking = st.lists(st.sampled_from("abcdefghij"), unique=True, max_size=10)


@given(st.dictionaries(st.sampled_from(["bm25", "dense", "x"]), _ranking), st.integers(0, 100))
def test_agrees_with_the_formula_and_sorts_by_score(rankings: dict[str, list[str]], k: int) -> None:
    fused = reciprocal_rank_fusion(rankings, k=k)
    expected = _reference(rankings, k)
    assert {key for key, _ in fused} == set(expected)
    for key, score in fused:
        assert score == pytest.approx(expected[key])
    scores = [score for _, score in fused]
    assert scores == sorted(scores, reverse=True)
