"""A prose span's stored vector joins its neighbours in its version (``in_context``)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.retrieval.dense import in_context, shared_embedder
from ledger.retrieval.index import IndexedSpan, embed_spans


def _naive(
    vectors: np.ndarray, documents: Sequence[Hashable | None], window: int, weight: float
) -> np.ndarray:
    """The rule read literally: for each prose span, the mean of the prose spans of its
    document at most ``window`` places away in reading order, itself included."""
    out = vectors.astype(np.float64).copy()
    for i, document in enumerate(documents):
        if document is None:
            continue
        order = [j for j, d in enumerate(documents) if d == document]
        place = order.index(i)
        near = [j for k, j in enumerate(order) if abs(k - place) <= window]
        out[i] = vectors[i] + weight * vectors[near].mean(axis=0)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)


def _units(n: int, seed: int) -> np.ndarray:
    rows = np.random.default_rng(seed).normal(size=(n, 8)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@settings(max_examples=60, deadline=None)
@given(
    documents=st.lists(st.sampled_from(["a", "b", "c", None]), min_size=1, max_size=14),
    window=st.integers(0, 4),
    weight=st.sampled_from([0.0, 0.5, 2.0]),
    seed=st.integers(0, 2**16),
)
def test_matches_the_rule_read_literally(
    documents: list[str | None], window: int, weight: float, seed: int
) -> None:
    vectors = _units(len(documents), seed)
    got = in_context(vectors, documents, window, weight)
    assert np.allclose(got, _naive(vectors, documents, window, weight), atol=1e-5)


def test_cells_and_other_documents_are_left_alone() -> None:
    vectors = _units(5, 1)
    before = vectors.copy()
    got = in_context(vectors, ["a", None, "a", "b", None], 2, 2.0)
    assert np.array_equal(vectors, before)  # the input is not changed
    assert np.allclose(got[1], vectors[1], atol=1e-6)
    assert np.allclose(got[4], vectors[4], atol=1e-6)
    assert np.allclose(got[3], vectors[3], atol=1e-6)  # alone in its document
    assert not np.allclose(got[0], vectors[0], atol=1e-3)


def test_a_neighbour_beyond_the_window_changes_nothing() -> None:
    vectors = _units(6, 2)
    changed = vectors.copy()
    changed[5] = -changed[5]
    documents = ["a"] * 6
    assert np.allclose(
        in_context(vectors, documents, 2, 2.0)[:3], in_context(changed, documents, 2, 2.0)[:3]
    )
    assert not np.allclose(
        in_context(vectors, documents, 2, 2.0)[3], in_context(changed, documents, 2, 2.0)[3]
    )


def test_refuses_vectors_without_their_documents() -> None:
    with pytest.raises(ValueError, match="document"):
        in_context(_units(3, 3), ["a", "a"])


def _sentence(i: int, text: str, source: str, envelope: str | None = None) -> IndexedSpan:
    return IndexedSpan(
        f"sp_{i}", source, 1, 0, len(text), text, (), envelope, None, "derived",
        "2026-01-01T00:00:00.000000Z", None, False,
    )  # fmt: skip


def test_a_pronoun_sentence_moves_towards_what_its_passage_is_about() -> None:
    embedder = shared_embedder()
    spans = [
        _sentence(0, "The Lisbon aquarium is the largest in Europe.", "oceanario"),
        _sentence(1, "It opened in 1998 for the world exposition.", "oceanario"),
        _sentence(2, "Heavy rain closed the harbour for two days.", "weather"),
        _sentence(
            3, "25", "oceanario", envelope="Lisbon aquarium prices \u2014 Adults, Tickets: 25"
        ),
    ]
    vectors, tokens = embed_spans(embedder, spans)
    bare = embedder.embed([s.embedded_text for s in spans])
    query = embedder.embed(["When did the Lisbon aquarium open?"])[0]
    assert vectors[1] @ query > bare[1] @ query
    assert np.allclose(vectors[3], bare[3], atol=1e-6)  # a cell is its labels alone
    assert np.allclose(vectors[2], bare[2], atol=1e-6)  # alone in its source
    assert [t.tolist() for t in tokens] == [
        t.tolist() for t in embedder.embed_with_tokens([s.embedded_text for s in spans])[1]
    ]


def test_a_cell_is_embedded_from_its_labels_so_the_row_a_query_names_comes_first() -> None:
    """Every cell of a table shares its heading; in a mean of token vectors a long heading
    makes them near-identical. Embedded from their labels, the row the query names leads."""
    embedder = shared_embedder()
    heading = (
        "The following table summarizes the components of our consolidated statements of "
        "operations for the fiscal years presented (in thousands of dollars)"
    )
    rows = ["Research and development", "Sales and marketing", "General and administrative"]
    cells = [
        _sentence(i, "1,204", "report", envelope=f"{heading} \u2014 {row}, 2019: 1,204")
        for i, row in enumerate(rows)
    ]
    assert [c.embedded_text for c in cells] == [f"{row}, 2019" for row in rows]
    vectors, _ = embed_spans(embedder, cells)
    whole = embedder.embed([c.ranked_text for c in cells])
    query = embedder.embed(["How much was spent on sales and marketing in 2019?"])[0]
    assert int(np.argmax(vectors @ query)) == 1
    spread = lambda v: float(np.max(v @ query) - np.min(v @ query))  # noqa: E731
    assert spread(vectors) > 2 * spread(whole)
