"""Hybrid retrieval on a small slice of WiCE dev (skipped when the shared data is absent)."""

from __future__ import annotations

import pytest

from benchmarks.eval_cases import data_dir
from benchmarks.retrieval_eval import AS_OF, MODES, Scores, build, wice
from ledger.retrieval.dense import shared_embedder
from ledger.retrieval.retriever import HybridRetriever, RetrievalQuery

ROWS = 40


@pytest.fixture(scope="module")
def wice_slice():  # type: ignore[no-untyped-def]
    root = data_dir()
    if root is None or not (root / "wice").is_dir():
        pytest.skip("shared data (../shared/data/wice) is absent")
    spans, cases = wice(root, ROWS)
    return spans, cases, build(spans, shared_embedder())


def _recall_at_10(wice_slice, mode: str) -> float:  # type: ignore[no-untyped-def]
    _spans, cases, index = wice_slice
    retriever = HybridRetriever(shared_embedder())
    scores = Scores()
    for case in cases:
        outcome = retriever.retrieve(index, RetrievalQuery(case.query, 10, AS_OF), use=MODES[mode])
        scores.add([hit.span.span_id for hit in outcome.hits], case.gold)
    return scores.r10 / scores.n


def test_claims_find_their_supporting_sentences_among_every_articles_sentences(
    wice_slice,  # type: ignore[no-untyped-def]
) -> None:
    spans, cases, _ = wice_slice
    assert len(cases) > 20
    assert len(spans) > 20 * len(cases)  # the claim's own article is a small part of the index
    # Over all of WiCE dev RRF recall@10 is 0.73-0.75; a broken ranker or fusion drops far.
    assert _recall_at_10(wice_slice, "rrf") > 0.5


def test_fusion_is_not_worse_than_the_weaker_ranker_alone(wice_slice) -> None:  # type: ignore[no-untyped-def]
    fused = _recall_at_10(wice_slice, "rrf")
    assert fused >= min(_recall_at_10(wice_slice, "bm25"), _recall_at_10(wice_slice, "dense"))
