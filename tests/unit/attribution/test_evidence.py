"""The evidence pool behind location, checked against a naive reference implementation."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.attribution import Candidate
from ledger.attribution._evidence import EvidencePool, Weighed
from ledger.attribution._words import term_set


def _reference(spans: list[Candidate], wanted: frozenset[str]) -> Weighed | None:
    """The module docstring's formulas, computed the slow and obvious way."""
    kept: list[tuple[str, frozenset[str]]] = []
    for span in spans:
        if all(span.span_id != span_id for span_id, _ in kept):
            have = term_set(span.text) | (term_set(span.envelope) if span.envelope else set())
            kept.append((span.span_id, frozenset(have)))
    if not wanted or not kept:
        return None
    distinct: list[frozenset[str]] = []
    for _, have in kept:
        if have not in distinct:
            distinct.append(have)
    size = len(distinct)

    def evidence(have: frozenset[str]) -> float:
        total = 0.0
        for term in sorted(wanted & have):
            holders = sum(term in other for other in distinct)
            total += math.log(size / holders)
        return total

    scored = [(evidence(have), len(wanted & have), -i) for i, (_, have) in enumerate(kept)]
    best = max(range(len(kept)), key=lambda i: scored[i])
    odds = sum(math.exp(evidence(have) - scored[best][0]) for have in distinct)
    return Weighed(kept[best][0], scored[best][1] / len(wanted), 1 / odds)


_VOCABULARY = ["bridge", "tunnel", "1932", "harbour", "tolls", "ferry", "parade", "river"]
_TEXTS = st.lists(st.sampled_from(_VOCABULARY), max_size=4).map(" ".join)
_SPANS = st.lists(
    st.builds(Candidate, st.sampled_from(["s1", "s2", "s3", "s4", "s5", "s6"]), _TEXTS),
    max_size=8,
)


@given(_SPANS, _TEXTS)
def test_agrees_with_the_naive_reference(spans: list[Candidate], sentence: str) -> None:
    wanted = term_set(sentence)
    found = EvidencePool(spans).best(wanted)
    expected = _reference(spans, wanted)
    if expected is None:
        assert found is None
        return
    assert found is not None
    assert (found.span_id, found.recall) == (expected.span_id, expected.recall)
    assert found.posterior == pytest.approx(expected.posterior, rel=1e-9)
    first: dict[str, frozenset[str]] = {}
    for span in spans:
        first.setdefault(span.span_id, term_set(span.text))
    # At worst every distinct span is an equal rival; at best there is none.
    assert 1 / len(set(first.values())) <= found.posterior * (1 + 1e-12)
    assert found.posterior <= 1


def test_a_pool_of_one_span_is_certain() -> None:
    found = EvidencePool([Candidate("only", "The bridge opened in 1932.")]).best(
        term_set("The bridge opened in spring.")
    )
    assert found == Weighed("only", 2 / 3, 1.0)


def test_a_paragraph_printed_twice_is_one_candidate() -> None:
    pool = EvidencePool(
        [
            Candidate("first", "The bridge opened in 1932."),
            Candidate("rival", "The tunnel opened in 1992."),
            Candidate("again", "The bridge opened in 1932."),
        ]
    )
    found = pool.best(term_set("The bridge opened in 1932."))
    # Two distinct spans: "bridge" and "1932" each double the odds, "opened" is in both.
    assert found == Weighed("first", 1.0, pytest.approx(4 / 5))


def test_keeps_the_first_span_filed_under_a_repeated_id() -> None:
    pool = EvidencePool([Candidate("a", "The bridge."), Candidate("a", "The tunnel.")])
    assert pool.best(term_set("The tunnel.")) == Weighed("a", 0.0, 1.0)


def test_finds_nothing_for_a_sentence_without_terms_or_a_pool_without_spans() -> None:
    assert EvidencePool([Candidate("a", "The bridge.")]).best(frozenset()) is None
    assert EvidencePool([]).best(term_set("The bridge.")) is None
