"""The search index (Tantivy and the mapped arrays) answers as the in-memory reference does,
and its folder takes each row of the read model exactly once."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ledger.errors import ConfigurationError
from ledger.retrieval.dense import Embedder, shared_embedder
from ledger.retrieval.index import IndexedSpan, SpanIndex, embed_spans, span_terms
from ledger.retrieval.retriever import HybridRetriever, RetrievalQuery
from ledger.retrieval.visibility import SourceFilter
from projections.search.directory import IndexDirectory
from projections.search.lexical import LexicalWriter
from projections.search.standalone import standalone_index

NOW = "2026-06-01T00:00:00.000000Z"
PAST = "2026-02-01T00:00:00.000000Z"
TEXTS = [
    ("report", 1, "Net sales rose to $4.5 million in 2019. The board met in March."),
    ("report", 2, "Net sales rose to $4.7 million in 2019. The board met in April."),
    ("memo", 1, "Heavy rain closed the harbour for two days. Ferries resumed on Friday."),
    ("memo-2", 1, "Operating income fell to $1.2 million. Margins narrowed in Europe."),
    ("gone", 1, "Net sales in Europe rose sharply. The office in Lisbon opened."),
    ("notes", 1, "The committee did not approve the proposal on net sales targets."),
]
QUERIES = [
    "net sales 2019",
    "board meeting in April",
    "harbour closed by rain",
    "operating income Europe",
    "Lisbon office",
]


def _spans() -> list[IndexedSpan]:
    spans = []
    for n, (source, version, text) in enumerate(TEXTS):
        superseded = source == "report" and version == 1
        for i, sentence in enumerate(text.split(". ")):
            spans.append(
                IndexedSpan(
                    f"sp_{n:02d}{i:022d}",
                    source,
                    version,
                    0,
                    len(sentence),
                    sentence,
                    (),
                    None,
                    None,
                    "derived",
                    "2026-01-01T00:00:00.000000Z"
                    if version == 1
                    else "2026-03-01T00:00:00.000000Z",
                    "2026-03-01T00:00:00.000000Z" if superseded else None,
                    source == "gone",
                )
            )
    return spans


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return shared_embedder()


def _both(embedder: Embedder, tmp_path: Path) -> tuple[SpanIndex, Any]:
    spans = _spans()
    vectors, tokens = embed_spans(embedder, spans)
    stored = vectors.astype(np.float16).astype(np.float32)  # as the rows keep them
    terms = [span_terms(s) for s in spans]
    reference = SpanIndex(spans, terms, stored, embedder.version, tokens=tokens)
    engine = standalone_index(tmp_path / "index", spans, terms, stored, tokens, embedder.version)
    return reference, engine


class _Refuses(SourceFilter):
    def exclusion(self, source_id: str, version: int) -> str | None:
        return "entitlement-denied" if source_id == "memo" else None


@pytest.mark.parametrize("as_of", [NOW, PAST])
def test_the_engine_retrieves_what_the_in_memory_reference_retrieves(
    embedder: Embedder, tmp_path: Path, as_of: str
) -> None:
    reference, engine = _both(embedder, tmp_path)
    retriever = HybridRetriever(embedder)
    for query in QUERIES:
        for visibility in (None, _Refuses()):
            asked = RetrievalQuery(query, 5, as_of)
            expected = retriever.retrieve(reference, asked, visibility)
            got = retriever.retrieve(engine, asked, visibility)
            assert [(h.span.span_id, h.bm25, h.dense) for h in got.hits] == [
                (h.span.span_id, h.bm25, h.dense) for h in expected.hits
            ]
            assert got.exclusions == expected.exclusions


def test_a_withdrawn_or_superseded_version_is_never_ranked(
    embedder: Embedder, tmp_path: Path
) -> None:
    _, engine = _both(embedder, tmp_path)
    outcome = HybridRetriever(embedder).retrieve(engine, RetrievalQuery("net sales", 10, NOW))

    found = {(h.span.source_id, h.span.version) for h in outcome.hits}
    assert ("gone", 1) not in found
    assert ("report", 1) not in found
    assert ("report", 2) in found


def _rows(count: int, start: int = 0) -> list[dict[str, Any]]:
    vector = np.zeros(256, dtype=np.float16)
    vector[0] = 1
    return [
        {
            "row_id": n,
            "version_key": 0,
            "terms": ["alpha", f"term{n}"],
            "vector": vector.tobytes(),
            "tokens": np.array([5, 6], dtype="<u2").tobytes(),
            "model": "m1",
        }
        for n in range(start, start + count)
    ]


def _source(rows: Sequence[Mapping[str, Any]]) -> Any:
    return lambda first, limit: [r for r in rows if r["row_id"] >= first][:limit]


def test_a_follower_that_stopped_after_its_commit_adds_no_span_twice(tmp_path: Path) -> None:
    directory = IndexDirectory(tmp_path)
    directory.follow("e1", _source(_rows(10)))
    state = directory.state()
    assert state is not None
    # A follower committed rows 10-14 to Tantivy and stopped before it recorded the count.
    stray = LexicalWriter(tmp_path / state.folder / "lexical")
    for row in _rows(5, start=10):
        stray.add(row["row_id"], row["terms"])
    stray.commit()

    reached = directory.follow("e1", _source(_rows(20)))

    assert reached.rows == 20
    snapshot = directory.snapshot()
    assert snapshot is not None
    assert snapshot.lexical.document_frequency("alpha") == 20
    assert len(snapshot.arrays.version_keys) == 20
    assert snapshot.lexical.candidates(["term12"], 10) == [12]


def test_a_new_epoch_builds_the_index_again_in_its_own_folder(tmp_path: Path) -> None:
    directory = IndexDirectory(tmp_path)
    first = directory.follow("e1", _source(_rows(10)))

    second = directory.follow("e2", _source(_rows(3)))

    assert (second.epoch, second.rows) == ("e2", 3)
    assert not (tmp_path / first.folder).exists()
    snapshot = directory.snapshot()
    assert snapshot is not None
    assert snapshot.lexical.document_frequency("alpha") == 3


def test_rows_that_skip_a_number_are_refused(tmp_path: Path) -> None:
    rows = [r for r in _rows(5) if r["row_id"] != 2]

    with pytest.raises(ConfigurationError, match="skip from document 2 to 3"):
        IndexDirectory(tmp_path).follow("e1", _source(rows))


def test_a_reader_sees_the_count_recorded_not_documents_past_it(tmp_path: Path) -> None:
    directory = IndexDirectory(tmp_path)
    directory.follow("e1", _source(_rows(4)))
    reader = IndexDirectory(tmp_path)  # another process
    before = reader.snapshot()

    directory.follow("e1", _source(_rows(9)))
    after = reader.snapshot()

    assert before is not None
    assert after is not None
    assert (before.state.rows, after.state.rows) == (4, 9)
    assert after.lexical is before.lexical  # reloaded, not opened again
