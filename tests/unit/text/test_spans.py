"""Spans: offsets, ids, headings, pages, clauses and table cells, plus property checks."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.errors import InvalidInput
from ledger.text.normalize import MEDIA_TYPES, Structure, normalise
from ledger.text.spans import (
    Span,
    SpanIntegrityError,
    TableRef,
    build_spans,
    check_spans,
    span_id_for,
)
from ledger.text.tables import parse_tables, render_tables

DOC = (
    "# Returns\nWe accept returns within 30 days. Dr. Who agrees.\n\n"
    "## Damaged goods\nSend them back.\f\nPage two here.\n\n# Other\nText"
)


def _spans(text: str = DOC, media_type: str = "text/markdown", **kwargs: object) -> list[Span]:
    frozen, structure = normalise(text, media_type)
    return build_spans("src-1", "v-hash", frozen, structure, **kwargs)  # type: ignore[arg-type]


def test_span_id_is_sha256_of_source_version_and_offsets() -> None:
    assert span_id_for("s", "v", 1, 5) == span_id_for("s", "v", 1, 5)
    assert span_id_for("s", "v", 1, 5).startswith("sp_")
    assert len(span_id_for("s", "v", 1, 5)) == 3 + 24
    assert span_id_for("s", "v", 1, 5) != span_id_for("s", "v", 1, 6)


def test_heading_lines_are_breadcrumbs_and_not_spans() -> None:
    spans = _spans()
    assert [(s.text, s.heading_path, s.sent_index) for s in spans] == [
        ("We accept returns within 30 days.", ("Returns",), 0),
        ("Dr. Who agrees.", ("Returns",), 1),
        ("Send them back.", ("Returns", "Damaged goods"), 2),
        ("Page two here.", ("Returns", "Damaged goods"), 3),
        ("Text", ("Other",), 4),
    ]


def test_heading_lines_are_spans_with_breadcrumb_paths_when_asked() -> None:
    spans = _spans(cite_headings=True)
    assert [(s.text, s.heading_path, s.sent_index) for s in spans] == [
        ("Returns", ("Returns",), 0),
        ("We accept returns within 30 days.", ("Returns",), 1),
        ("Dr. Who agrees.", ("Returns",), 2),
        ("Damaged goods", ("Returns", "Damaged goods"), 3),
        ("Send them back.", ("Returns", "Damaged goods"), 4),
        ("Page two here.", ("Returns", "Damaged goods"), 5),
        ("Other", ("Other",), 6),
        ("Text", ("Other",), 7),
    ]


def test_pages_count_form_feeds_and_paragraphs_count_blocks() -> None:
    spans = _spans(cite_headings=True)
    assert [s.page for s in spans] == [1, 1, 1, 1, 1, 2, 2, 2]
    assert [s.paragraph for s in spans] == [0, 1, 1, 2, 3, 4, 5, 6]


def test_page_is_none_without_form_feeds() -> None:
    assert {s.page for s in _spans("One. Two.", "text/plain")} == {None}


def test_long_sentence_gets_clause_children_after_it() -> None:
    sentence = "First clause here; second clause here, and a third clause follows."
    spans = _spans(sentence, "text/plain", max_sentence_chars=30)
    parent, *children = spans
    assert parent.parent_span_id is None
    assert [c.text for c in children] == [
        "First clause here;",
        "second clause here,",
        "and a third clause follows.",
    ]
    assert {c.parent_span_id for c in children} == {parent.span_id}
    assert {c.sent_index for c in children} == {parent.sent_index}


def test_table_cells_follow_body_sentences_with_envelopes() -> None:
    body, structure = normalise("Intro text. More text.", "text/plain")
    tables = parse_tables(
        [{"table_id": "t1", "title": "Revenue", "columns": ["Segment", "FY23"],
          "rows": [["Services", "$4.5m"]], "footnotes": ["USD."]}]
    )  # fmt: skip
    rendered, cells = render_tables(tables, len(body) + 2)
    combined = body + "\n\n" + rendered
    spans = build_spans("s", "v", combined, structure, cells)
    assert [s.text for s in spans] == ["Intro text.", "More text.", "Services", "$4.5m"]
    cell = spans[3]
    assert cell.sent_index == 3
    assert cell.table_ref == TableRef("t1", 0, 1)
    assert cell.heading_path == ("Revenue",)
    assert cell.paragraph == 1
    assert cell.envelope == "Revenue Segment \u2014 Services, FY23: $4.5m [1] USD."


def test_rejects_a_cell_placement_that_does_not_point_at_its_value() -> None:
    body, structure = normalise("Intro.", "text/plain")
    tables = parse_tables([{"table_id": "t", "title": "T", "columns": ["A"], "rows": [["v"]]}])
    rendered, cells = render_tables(tables, len(body))  # forgot the two separating newlines
    with pytest.raises(SpanIntegrityError, match="expected its value"):
        build_spans("s", "v", body + "\n\n" + rendered, structure, cells)


def test_rejects_spans_whose_text_is_not_at_their_offsets() -> None:
    span = _spans("One. Two.", "text/plain")[0]
    with pytest.raises(SpanIntegrityError, match=r"expected text 'One\.' at 0:4, found 'Two\.'"):
        check_spans("Two. One.", [span])


def test_rejects_overlapping_top_level_spans() -> None:
    first, second = _spans("One. Two.", "text/plain")
    with pytest.raises(SpanIntegrityError, match="inside the span before it"):
        check_spans("One. Two.", [first, replace(second, start=2, text="e. Two.")])


def test_builds_no_spans_for_an_empty_structure() -> None:
    assert build_spans("s", "v", "", Structure((), (), ())) == []


_raw = st.text(
    alphabet=st.sampled_from(list("ab Z.?!\"'\n\n\f\t-1#*_[]()<>/&;:,\u00e9\u0301"))
    | st.characters(),
    max_size=300,
)


@settings(max_examples=150, deadline=None)
@given(_raw, st.sampled_from(MEDIA_TYPES), st.integers(min_value=5, max_value=80))
def test_spans_quote_frozen_text_without_overlap_and_ids_are_stable(
    raw: str, media_type: str, limit: int
) -> None:
    try:
        frozen, structure = normalise(raw, media_type)
    except InvalidInput:
        return
    spans = build_spans("src-a", "v1", frozen, structure, max_sentence_chars=limit)
    by_id = {span.span_id: span for span in spans}
    assert len(by_id) == len(spans)
    previous_end = 0
    for span in spans:
        assert span.text == frozen[span.start : span.end]
        if span.parent_span_id is None:
            assert previous_end <= span.start
            previous_end = span.end
        else:
            parent = by_id[span.parent_span_id]
            assert parent.start <= span.start < span.end <= parent.end
    again = build_spans("src-a", "v1", frozen, structure, max_sentence_chars=limit)
    assert [s.span_id for s in again] == [s.span_id for s in spans]
    other = build_spans("src-b", "v1", frozen, structure, max_sentence_chars=limit)
    assert not {s.span_id for s in other} & set(by_id)
