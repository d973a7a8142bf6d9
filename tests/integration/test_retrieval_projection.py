"""The retrieval read model and the index built from it: exactly once, current with
supersession and withdrawal, rebuildable to identical rows, on both backends."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from sqlalchemy import func, select, update

from ledger.errors import ConfigurationError
from ledger.registry.source_desk import SourceDraft
from ledger.retrieval.dense import in_context, shared_embedder
from ledger.retrieval.retriever import HybridRetriever, RetrievalQuery
from ledger.retrieval.terms import terms as span_terms_of
from ledger.runtime import LedgerRuntime
from projections.schema import retrieval_spans
from projections.service import ReadSide

TEXT = "The board met on Jan. 5. Revenue rose 2.2% to $4.5 million. No dividend was declared."
NOW = "9000-01-01T00:00:00.000000Z"


def _ingest(runtime: LedgerRuntime, count: int, start: int = 0) -> int:
    """Register ``count`` documents; return how many spans they have."""
    spans = 0
    for i in range(start, start + count):
        receipt = runtime.sources.register(
            f"doc-{i}",
            SourceDraft(f"{TEXT} Document {i}.", "text/plain", f"Doc {i}"),
            "derived",
            "test:suite",
        )
        spans += len(receipt.spans)
    return spans


def _rows(read_side: ReadSide) -> list[dict[str, Any]]:
    with read_side.db.sync.connect() as conn:
        rows = conn.execute(
            select(retrieval_spans).order_by(
                retrieval_spans.c.source_id, retrieval_spans.c.version, retrieval_spans.c.ord
            )
        )
        return [dict(row) for row in rows.mappings()]


def _texts(read_side: ReadSide, query: str) -> list[tuple[str, int, str]]:
    index = read_side.retrieval_index.current()
    outcome = HybridRetriever(shared_embedder()).retrieve(index, RetrievalQuery(query, 20, NOW))
    return [(h.span.source_id, h.span.version, h.span.text) for h in outcome.hits]


def test_each_span_is_projected_once_across_restarts_and_two_runners(
    runtime: LedgerRuntime,
) -> None:
    spans = _ingest(runtime, 2)
    one = ReadSide(runtime.ledger, runtime.database)
    two = ReadSide(runtime.ledger, runtime.database)
    try:
        one.retrieval.catch_up()
        two.retrieval.catch_up()
        spans += _ingest(runtime, 1, start=2)
        two.retrieval.catch_up()
        one.retrieval.catch_up()
        rows = _rows(one)
        assert len(rows) == spans
        assert {r["source_id"] for r in rows} == {"doc-0", "doc-1", "doc-2"}
        assert one.retrieval.position() == runtime.ledger.last_position()
    finally:
        one.close()
        two.close()


def test_rows_carry_unit_vectors_of_the_span_text_with_its_neighbours(
    runtime: LedgerRuntime,
) -> None:
    _ingest(runtime, 1)
    read_side = ReadSide(runtime.ledger, runtime.database)
    try:
        read_side.catch_up()
        rows = _rows(read_side)
        at = next(i for i, r in enumerate(rows) if r["text"].startswith("Revenue"))
        row = rows[at]
        vector = np.frombuffer(row["vector"], dtype=np.float16).astype(np.float32)
        texts = [r["text"] for r in rows]
        bare = shared_embedder().embed(texts)
        expected = in_context(bare, ["doc-0"] * len(texts))[at]
        assert np.allclose(vector, expected, atol=2e-3)
        # The neighbours count: the sentence's own vector alone is not what is stored.
        assert not np.allclose(vector, shared_embedder().embed([row["text"]])[0], atol=2e-2)
        assert row["terms"] == span_terms_of(row["text"])
        _, (ids,) = shared_embedder().embed_with_tokens([row["text"]])
        assert np.frombuffer(row["tokens"], dtype="<u2").tolist() == ids.tolist()
        assert row["model"] == shared_embedder().version
    finally:
        read_side.close()


def test_the_index_follows_supersession_and_withdrawal(runtime: LedgerRuntime) -> None:
    runtime.sources.register(
        "policy", SourceDraft("Refunds are paid within 30 days.", "text/plain", "P"), "derived", "t"
    )
    read_side = ReadSide(runtime.ledger, runtime.database)
    try:
        assert _texts(read_side, "refunds paid days") == [
            ("policy", 1, "Refunds are paid within 30 days.")
        ]
        runtime.sources.add_version(
            "policy", SourceDraft("Refunds are paid within 14 days.", "text/plain", "P"), "t"
        )
        assert _texts(read_side, "refunds paid days") == [
            ("policy", 2, "Refunds are paid within 14 days.")
        ]
        first = _rows(read_side)[0]
        assert first["version"] == 1
        assert first["effective_to"] is not None

        runtime.sources.withdraw("policy", "retracted", "t")
        assert _texts(read_side, "refunds paid days") == []
        assert all(row["withdrawn"] == 1 for row in _rows(read_side))
    finally:
        read_side.close()


def test_a_version_and_its_successor_in_one_batch_are_both_right(runtime: LedgerRuntime) -> None:
    runtime.sources.register(
        "policy", SourceDraft("Refunds are paid within 30 days.", "text/plain", "P"), "derived", "t"
    )
    runtime.sources.add_version(
        "policy", SourceDraft("Refunds are paid within 14 days.", "text/plain", "P"), "t"
    )
    runtime.sources.withdraw("policy", "retracted", "t")
    read_side = ReadSide(runtime.ledger, runtime.database)
    try:
        read_side.retrieval.catch_up()  # all three events in one batch
        rows = _rows(read_side)
        assert [(r["version"], r["effective_to"] is None, r["withdrawn"]) for r in rows] == [
            (1, False, 1),
            (2, True, 1),
        ]
    finally:
        read_side.close()


def test_rebuild_gives_identical_rows_and_the_same_index(runtime: LedgerRuntime) -> None:
    _ingest(runtime, 3)
    runtime.sources.add_version(
        "doc-1", SourceDraft("A changed text. With two sentences.", "text/plain", "Doc 1"), "t"
    )
    runtime.sources.withdraw("doc-2", "retracted", "t")
    read_side = ReadSide(runtime.ledger, runtime.database)
    try:
        read_side.catch_up()
        before = _rows(read_side)
        answer = _texts(read_side, "revenue dividend changed text")
        read_side.rebuild()
        assert _rows(read_side) == before
        assert _texts(read_side, "revenue dividend changed text") == answer
        with read_side.db.sync.connect() as conn:
            count = conn.execute(select(func.count()).select_from(retrieval_spans)).scalar_one()
        assert len(read_side.retrieval_index.current()) == count
    finally:
        read_side.close()


def test_an_ingest_is_appended_to_the_index_not_rebuilt(runtime: LedgerRuntime) -> None:
    _ingest(runtime, 1)
    read_side = ReadSide(runtime.ledger, runtime.database)
    try:
        first = read_side.retrieval_index.current()
        assert first.snapshot is not None
        assert read_side.retrieval_index.current().snapshot is first.snapshot
        _ingest(runtime, 1, start=1)
        second = read_side.retrieval_index.current()
        assert second.snapshot is not None
        assert len(second) > len(first)
        assert second.snapshot.state.folder == first.snapshot.state.folder
        assert second.snapshot.lexical is first.snapshot.lexical  # reloaded, not reopened
    finally:
        read_side.close()


def test_rows_of_an_earlier_dense_model_are_refused_until_a_rebuild_re_embeds_them(
    runtime: LedgerRuntime,
) -> None:
    _ingest(runtime, 1)
    read_side = ReadSide(runtime.ledger, runtime.database)
    try:
        read_side.catch_up()
        with read_side.db.sync.begin() as conn:  # as a release before the token match left them
            conn.execute(update(retrieval_spans).values(model="0.4.0.post1-256d", tokens=None))
        stale = read_side.retrieval_index.current()
        with pytest.raises(ConfigurationError, match="projections rebuild"):
            HybridRetriever(shared_embedder()).retrieve(stale, RetrievalQuery("revenue", 5, NOW))

        read_side.rebuild()

        rows = _rows(read_side)
        assert {r["model"] for r in rows} == {shared_embedder().version}
        assert all(r["tokens"] for r in rows)
        assert _texts(read_side, "revenue dividend")
    finally:
        read_side.close()


def test_rows_of_a_release_before_the_search_index_are_refused_until_a_rebuild(
    runtime: LedgerRuntime,
) -> None:
    _ingest(runtime, 1)
    read_side = ReadSide(runtime.ledger, runtime.database)
    try:
        read_side.catch_up()
        with read_side.db.sync.begin() as conn:  # as the release before left them
            conn.execute(update(retrieval_spans).values(row_id=None, version_key=None))
        with pytest.raises(ConfigurationError, match="projections rebuild"):
            read_side.retrieval_index.current()

        read_side.rebuild()

        assert len(read_side.retrieval_index.current()) == len(_rows(read_side))
    finally:
        read_side.close()
