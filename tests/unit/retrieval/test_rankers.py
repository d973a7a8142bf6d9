"""The sparse and dense rankers and the hybrid retriever over a small index."""

from __future__ import annotations

import numpy as np
import pytest

from ledger.errors import InvalidInput
from ledger.retrieval.dense import DIMENSIONS, Embedder, shared_embedder
from ledger.retrieval.index import IndexedSpan, SpanIndex, embed_spans, span_terms
from ledger.retrieval.retriever import HybridRetriever, RetrievalQuery
from ledger.retrieval.sparse import K1, B, SparseRanker, top

NOW = "2026-06-01T00:00:00.000000Z"
TEXTS = [
    "Net sales rose to $4.5 million in 2019.",
    "Net income fell to $1.2 million in 2019.",
    "The board approved a new office in Lisbon.",
    "Heavy rain closed the harbour for two days.",
]


def _span(i: int, text: str, **extra: object) -> IndexedSpan:
    fields: dict[str, object] = {
        "span_id": f"sp_{i:024x}",
        "source_id": f"doc-{i}",
        "version": 1,
        "start": 0,
        "end": len(text),
        "text": text,
        "heading_path": (),
        "envelope": None,
        "table_ref": None,
        "authority": "derived",
        "effective_from": "2026-01-01T00:00:00.000000Z",
        "effective_to": None,
        "withdrawn": False,
    }
    fields.update(extra)
    return IndexedSpan(**fields)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return shared_embedder()


def _index(embedder: Embedder, spans: list[IndexedSpan]) -> SpanIndex:
    vectors, tokens = embed_spans(embedder, spans)
    terms = [span_terms(s) for s in spans]
    return SpanIndex(spans, terms, vectors, embedder.version, tokens=tokens)


def test_embedder_loads_the_packaged_weights_and_gives_unit_vectors(embedder: Embedder) -> None:
    vectors = embedder.embed(["revenue grew", "sales increased", "", "rain in the harbour"])
    assert vectors.shape == (4, DIMENSIONS)
    assert np.linalg.norm(vectors[0]) == pytest.approx(1.0, abs=1e-5)
    assert not vectors[2].any()
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[3]


def test_embedding_is_the_same_alone_or_in_a_batch(embedder: Embedder) -> None:
    batch = embedder.embed(TEXTS * 100)
    alone = embedder.embed([TEXTS[2]])
    np.testing.assert_allclose(batch[302], alone[0], rtol=1e-5, atol=1e-6)


def test_every_text_of_a_long_batch_with_empty_texts_gets_its_own_mean(
    embedder: Embedder,
) -> None:
    """Texts are pooled a few dozen at a time: across those groups (and the tokenizer's
    chunks), with empty texts anywhere, each vector is still the mean of its own tokens."""
    texts = [TEXTS[i % len(TEXTS)] if i % 7 else "" for i in range(600)]
    vectors, tokens = embedder.embed_with_tokens(texts)
    for i in (0, 1, 31, 32, 33, 63, 64, 255, 256, 257, 599):
        expected = embedder.table[tokens[i].astype(np.int64)].sum(axis=0)
        norm = np.linalg.norm(expected)
        np.testing.assert_allclose(
            vectors[i], expected / norm if norm else expected, rtol=1e-5, atol=1e-6
        )
        assert (len(tokens[i]) == 0) == (texts[i] == "")


def test_sparse_ranker_puts_the_span_sharing_rare_terms_first() -> None:
    ranker = SparseRanker([span_terms(_span(i, t)) for i, t in enumerate(TEXTS)])
    eligible = np.ones(len(TEXTS), dtype=bool)
    ranked = ranker.rank(["lisbon", "office"], eligible, 10)
    assert ranked[0][0] == 2
    assert [i for i, _ in ranked] == [2]  # spans sharing no term are not ranked


def test_sparse_ranker_skips_masked_spans_without_changing_the_others_scores() -> None:
    ranker = SparseRanker([span_terms(_span(i, t)) for i, t in enumerate(TEXTS)])
    everyone = dict(ranker.rank(["2019", "income"], np.ones(4, dtype=bool), 10))
    masked = dict(ranker.rank(["2019", "income"], np.array([False, True, True, True]), 10))
    assert 0 not in masked
    assert masked[1] == everyone[1]


def test_top_orders_by_score_then_index_and_ignores_infinite_scores() -> None:
    scores = np.array([0.5, -np.inf, 0.9, 0.5, 0.1])
    assert [i for i, _ in top(scores, 3)] == [2, 0, 3]
    assert [i for i, _ in top(scores, 10)] == [2, 0, 3, 4]


def test_hybrid_retrieval_fuses_both_rankers_and_reports_their_ranks(embedder: Embedder) -> None:
    index = _index(embedder, [_span(i, t) for i, t in enumerate(TEXTS)])
    outcome = HybridRetriever(embedder).retrieve(index, RetrievalQuery("Lisbon office", 2, NOW))
    first = outcome.hits[0]
    assert first.span.text == TEXTS[2]
    assert first.bm25 is not None
    assert first.bm25[0] == 1
    assert first.dense is not None
    assert first.rrf == pytest.approx(1 / 61 + 1 / (60 + first.dense[0]))


def test_the_gate_withholds_a_candidate_that_only_shares_a_domain_stop_word(
    embedder: Embedder,
) -> None:
    index = _index(embedder, [_span(i, t) for i, t in enumerate(TEXTS)])
    outcome = HybridRetriever(embedder).retrieve(index, RetrievalQuery("net income", 4, NOW))
    assert [hit.span.text for hit in outcome.hits] == [TEXTS[1]]
    assert outcome.exclusions["lexical-gate"] >= 1


def test_only_spans_in_force_and_not_withdrawn_are_eligible(embedder: Embedder) -> None:
    spans = [
        _span(0, "Refunds within 30 days.", effective_to="2026-03-01T00:00:00.000000Z"),
        _span(1, "Refunds within 14 days.", effective_from="2026-03-01T00:00:00.000000Z"),
        _span(2, "Refunds within 7 days.", withdrawn=True),
    ]
    index = _index(embedder, spans)
    retriever = HybridRetriever(embedder)
    now = retriever.retrieve(index, RetrievalQuery("refunds days", 5, NOW))
    before = retriever.retrieve(
        index, RetrievalQuery("refunds days", 5, "2026-02-01T00:00:00.000000Z")
    )
    assert [h.span.text for h in now.hits] == ["Refunds within 14 days."]
    assert [h.span.text for h in before.hits] == ["Refunds within 30 days."]


def test_filters_narrow_the_candidates_to_named_sources(embedder: Embedder) -> None:
    index = _index(embedder, [_span(i, t) for i, t in enumerate(TEXTS)])
    outcome = HybridRetriever(embedder).retrieve(
        index, RetrievalQuery("2019 million", 5, NOW, source_ids=("doc-1",))
    )
    assert {hit.span.source_id for hit in outcome.hits} == {"doc-1"}


def test_a_refusing_filter_is_asked_once_per_source_version_and_its_code_counted(
    embedder: Embedder,
) -> None:
    index = _index(embedder, [_span(0, TEXTS[0]), _span(1, TEXTS[0] + " Again.")])
    asked: list[tuple[str, int]] = []

    class Refuse:
        def exclusion(self, source_id: str, version: int) -> str | None:
            asked.append((source_id, version))
            return "entitlement-group-mismatch" if source_id == "doc-1" else None

    outcome = HybridRetriever(embedder).retrieve(
        index, RetrievalQuery("net sales 2019", 5, NOW), Refuse()
    )
    assert [hit.span.source_id for hit in outcome.hits] == ["doc-0"]
    assert outcome.exclusions == {"entitlement-group-mismatch": 1}
    assert sorted(asked) == [("doc-0", 1), ("doc-1", 1)]


@pytest.mark.parametrize(
    ("query", "k", "field", "rule"),
    [
        ("", 5, "query", "empty"),
        ("revenue", 0, "k", "range"),
        ("the of per", 5, "query", "content-terms"),
    ],
)
def test_rejects_a_query_it_cannot_answer(
    embedder: Embedder, query: str, k: int, field: str, rule: str
) -> None:
    index = _index(embedder, [_span(0, TEXTS[0])])
    with pytest.raises(InvalidInput) as caught:
        HybridRetriever(embedder).retrieve(index, RetrievalQuery(query, k, NOW))
    assert (caught.value.field, caught.value.rule) == (field, rule)


def test_an_empty_index_answers_nothing(embedder: Embedder) -> None:
    empty = SpanIndex([], [], np.zeros((0, DIMENSIONS), dtype=np.float32), "none")
    assert HybridRetriever(embedder).retrieve(empty, RetrievalQuery("revenue", 5, NOW)).hits == []


def test_a_large_index_shortlists_by_sign_bits_and_keeps_the_nearest_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ledger.retrieval import dense

    monkeypatch.setattr(dense, "SHORTLIST_FROM", 100)
    monkeypatch.setattr(dense, "SHORTLIST", 50)
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((1000, DIMENSIONS)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ranker = dense.DenseRanker(vectors, "v")
    exact = dense.DenseRanker(vectors[:99], "v")  # below the threshold: scans every span
    assert ranker._bits is not None
    assert exact._bits is None
    eligible = np.ones(1000, dtype=bool)
    eligible[7] = False

    ranked = ranker.rank(vectors[42], eligible, 5)

    assert ranked[0][0] == 42
    assert ranked[0][1] == pytest.approx(1.0, abs=1e-5)
    assert 7 not in [i for i, _ in ranker.rank(vectors[7], eligible, 5)]
    scores = [score for _, score in ranked]
    assert scores == sorted(scores, reverse=True)


def test_the_whole_array_bm25_matrix_scores_as_bm25s_own_index_does() -> None:
    import bm25s

    rng = np.random.default_rng(5)
    words = [f"w{i}" for i in range(40)]
    documents = [list(rng.choice(words, size=rng.integers(0, 15))) for _ in range(300)]
    reference = bm25s.BM25(k1=K1, b=B, method="lucene")
    reference.index(documents, show_progress=False)
    ours = SparseRanker(documents)
    for query in (["w1"], ["w2", "w3", "w2"], ["w39", "w0", "nowhere"]):
        known = [t for t in dict.fromkeys(query) if t in reference.vocab_dict]
        np.testing.assert_allclose(
            ours.scores(query), reference.get_scores(known), rtol=1e-5, atol=1e-6
        )


def test_refuses_an_index_whose_vectors_another_model_made(embedder: Embedder) -> None:
    from ledger.errors import ConfigurationError

    spans = [_span(0, TEXTS[0])]
    index = SpanIndex(spans, [span_terms(spans[0])], embedder.embed([TEXTS[0]]), "other-model")
    with pytest.raises(ConfigurationError, match="projections rebuild"):
        HybridRetriever(embedder).retrieve(index, RetrievalQuery("net sales", 5, NOW))


def _basis(*indices: int) -> np.ndarray:
    out = np.zeros((len(indices), DIMENSIONS), dtype=np.float32)
    out[np.arange(len(indices)), indices] = 1.0
    return out


def test_token_match_lifts_the_span_holding_the_query_token_above_a_nearer_mean() -> None:
    from ledger.retrieval.dense import TOKEN_MATCH, DenseQuery, DenseRanker

    table = _basis(0, 1, 2)  # three orthogonal unit token vectors
    query = np.zeros(DIMENSIONS, dtype=np.float32)
    query[:2] = (0.6, 0.8)
    vectors = np.stack([_basis(1)[0], _basis(0)[0]])  # span 0: cosine 0.8, span 1: 0.6
    tokens = [np.array([1, 2], dtype=np.uint16), np.array([0], dtype=np.uint16)]
    dense_query = DenseQuery(query, table[[0]], table)
    eligible = np.ones(2, dtype=bool)

    by_cosine = DenseRanker(vectors, "v").rank(dense_query, eligible, 2)
    matched = DenseRanker(vectors, "v", tokens).rank(dense_query, eligible, 2)

    assert [i for i, _ in by_cosine] == [0, 1]
    assert [i for i, _ in matched] == [1, 0]
    assert matched[0][1] == pytest.approx((1 - TOKEN_MATCH) * 0.6 + TOKEN_MATCH * 1.0)
    assert matched[1][1] == pytest.approx((1 - TOKEN_MATCH) * 0.8 + TOKEN_MATCH * 0.0)


def test_a_span_without_tokens_is_matched_on_its_cosine_alone() -> None:
    from ledger.retrieval.dense import TOKEN_MATCH, DenseQuery, DenseRanker

    table = _basis(0, 1)
    vectors = np.stack([_basis(0)[0], _basis(1)[0]])
    tokens = [np.array([], dtype=np.uint16), np.array([1], dtype=np.uint16)]
    ranked = DenseRanker(vectors, "v", tokens).rank(
        DenseQuery(vectors[0], table[[0]], table), np.ones(2, dtype=bool), 2
    )
    assert ranked[0] == (0, pytest.approx((1 - TOKEN_MATCH) * 1.0))


def test_a_ranker_refuses_token_lists_that_do_not_match_its_spans() -> None:
    from ledger.retrieval.dense import DenseRanker

    with pytest.raises(ValueError, match="token ids"):
        DenseRanker(_basis(0, 1), "v", [np.array([0], dtype=np.uint16)])


def test_embedding_with_tokens_gives_the_same_vectors_and_the_tokenizers_ids(
    embedder: Embedder,
) -> None:
    vectors, tokens = embedder.embed_with_tokens([TEXTS[0], "", TEXTS[2]])
    np.testing.assert_allclose(vectors, embedder.embed([TEXTS[0], "", TEXTS[2]]))
    assert tokens[0].tolist() == embedder.tokenizer.encode(TEXTS[0], add_special_tokens=False).ids
    assert len(tokens[1]) == 0
    assert tokens[0].dtype == np.uint16


def test_a_query_matches_on_its_content_tokens_not_function_words_or_punctuation(
    embedder: Embedder,
) -> None:
    query = embedder.query("What is the revenue of Lisbon?")
    pieces = {
        embedder.tokenizer.id_to_token(int(i))
        for i in embedder.tokenizer.encode("What is the revenue of Lisbon?").ids
        if any(np.allclose(embedder.unit_table[i], row) for row in query.tokens)
    }
    assert pieces
    assert not pieces & {"\u2581What", "\u2581is", "\u2581the", "\u2581of", "?"}
    assert np.linalg.norm(query.tokens, axis=1) == pytest.approx(1.0, abs=1e-5)
    only_function_words = embedder.query("what is the")
    assert len(only_function_words.tokens) > 0  # falls back to every token


def test_the_dense_version_names_the_token_match_the_context_and_the_cell_text(
    embedder: Embedder,
) -> None:
    from ledger.retrieval.dense import CONTEXT_WEIGHT, CONTEXT_WINDOW, TOKEN_MATCH

    assert embedder.version.endswith(
        f"-{DIMENSIONS}d+match{TOKEN_MATCH}+context{CONTEXT_WINDOW}x{CONTEXT_WEIGHT}+cell-labels"
    )
