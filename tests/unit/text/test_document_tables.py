"""Markdown (markdown-it-py) and HTML sources: headings, links, raw HTML and their tables."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.errors import InvalidInput
from ledger.registry.ingestion import Limits, prepare_version
from ledger.text.normalize import normalise
from ledger.text.spans import check_spans

REPORT = """# Annual report

## Revenue

Revenue grew in [the year][fy] as [planned](https://example.com "plan").

| Segment | 2019 | 2018 |
|---|---|---|
| Services | 4.5 | 3.9 |
| Hard<br>ware | 1.2 | |

<div class="note"><p>Figures are <b>audited</b>.</p><script>x()</script></div>

[fy]: https://example.com/fy
"""


def _prepared(text: str, media_type: str = "text/markdown", **kwargs: object):  # type: ignore[no-untyped-def]
    return prepare_version("src", text, media_type, "Report", None, Limits(), **kwargs)  # type: ignore[arg-type]


def test_markdown_headings_become_the_breadcrumb_and_are_not_sentences() -> None:
    prepared = _prepared(REPORT)
    texts = [span.text for span in prepared.spans if span.table_ref is None]
    assert "Annual report" not in texts
    assert "Revenue" not in texts
    first = next(span for span in prepared.spans if span.text.startswith("Revenue grew"))
    assert first.heading_path == ("Annual report", "Revenue")


def test_markdown_headings_are_spans_when_asked() -> None:
    prepared = _prepared(REPORT, cite_headings=True)
    assert [s.text for s in prepared.spans[:2]] == ["Annual report", "Revenue"]


def test_markdown_links_and_reference_links_keep_their_text() -> None:
    frozen, _ = normalise(REPORT, "text/markdown")
    assert "Revenue grew in the year as planned." in frozen
    assert "https://" not in frozen
    assert "[fy]" not in frozen


def test_markdown_raw_html_is_reduced_like_html_input() -> None:
    frozen, _ = normalise(REPORT, "text/markdown")
    assert "Figures are audited." in frozen
    assert "<" not in frozen
    assert "x()" not in frozen


def test_markdown_emphasis_code_and_fences_lose_their_markers() -> None:
    frozen, _ = normalise("Some **bold**, _em_ and `code`.\n\n```py\nx = 1\n```\n", "text/markdown")
    assert frozen == "Some bold, em and code.\n\nx = 1"


def test_markdown_lists_keep_their_markers_and_nesting() -> None:
    frozen, _ = normalise("- one\n- two\n  1. nested\n", "text/markdown")
    assert frozen == "- one\n- two\n  1. nested"


def test_a_markdown_pipe_table_becomes_a_table_with_cell_spans() -> None:
    prepared = _prepared(REPORT)
    (table,) = prepared.tables
    assert (table.table_id, table.title) == ("doc-1", "Revenue")
    assert table.header_rows == (("Segment", "2019", "2018"),)
    assert table.rows == (("Services", "4.5", "3.9"), ("Hard ware", "1.2", ""))
    cell = next(span for span in prepared.spans if span.table_ref and span.text == "3.9")
    assert cell.envelope == "Revenue Segment \u2014 Services, 2018: 3.9"
    assert "| Segment |" not in prepared.text.split("\n\nRevenue\n| Segment")[0]


def test_an_html_table_keeps_its_caption_header_rows_and_spans() -> None:
    html = (
        "<h2>Results</h2><table><caption>In thousands</caption>"
        "<thead><tr><th></th><th colspan='2'>Year ended</th></tr>"
        "<tr><th></th><th>2019</th><th>2018</th></tr></thead>"
        "<tbody><tr><td rowspan='2'>Sales</td><td>10</td><td>9</td></tr>"
        "<tr><td>11</td><td>8</td></tr></tbody></table>"
    )
    prepared = _prepared(html, "text/html")
    (table,) = prepared.tables
    assert table.caption == "In thousands"
    assert table.columns == ("", "Year ended 2019", "Year ended 2018")
    assert table.rows == (("Sales", "10", "9"), ("", "11", "8"))
    cell = next(span for span in prepared.spans if span.table_ref and span.text == "9")
    assert cell.envelope == "Results In thousands \u2014 Sales, Year ended 2018: 9"


def test_a_document_made_only_of_a_table_is_accepted() -> None:
    prepared = _prepared("<table><tr><th>A</th></tr><tr><td>1</td></tr></table>", "text/html")
    assert prepared.text.startswith("Table doc-1\n| A |")


def test_a_request_table_may_not_take_a_document_table_id() -> None:
    table = {"table_id": "doc-1", "title": "", "columns": ["B"], "rows": [["2"]]}
    with pytest.raises(InvalidInput) as caught:
        prepare_version("src", "| A |\n|---|\n| 1 |\n", "text/markdown", "T", [table], Limits())
    assert (caught.value.field, caught.value.rule) == ("tables[0].table_id", "unique")
    assert "is the id of a table of the document" in caught.value.message


_MARKDOWN = st.lists(
    st.sampled_from(
        ["# H\n", "## Sub\n", "text. ", "More text.\n", "\n", "| a | b |\n", "|---|---|\n",
         "| 1 | |\n", "[x][r]", "[r]: /u\n", "<b>", "</b>", "<table><tr><td>c</td></tr></table>",
         "- item\n", "> quote\n", "```\n", "\f", "\u00e9", "e\u0301", "**", "`", "\t", "\r\n"]
    ),
    max_size=30,
).map("".join)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(_MARKDOWN, st.sampled_from(["text/markdown", "text/html"]))
def test_every_span_and_cell_points_into_the_frozen_text_exactly(raw: str, media_type: str) -> None:
    try:
        prepared = _prepared(raw, media_type)
    except InvalidInput:
        return
    check_spans(prepared.text, prepared.spans)
    for span in prepared.spans:
        assert prepared.text[span.start : span.end] == span.text
        if span.envelope is not None:
            assert f": {span.text}" in span.envelope
    again, _ = normalise(prepared.text, "text/plain")
    assert again == prepared.text


def test_an_html_layout_table_stays_text() -> None:
    html = (
        "<table><tr><td><h1>Shop</h1><p>We sell tea. We ship fast.</p></td>"
        "<td><ul><li>Home</li></ul></td></tr></table>"
    )
    prepared = _prepared(html, "text/html")
    assert prepared.tables == ()
    texts = [span.text for span in prepared.spans]
    assert "We ship fast." in texts
    assert "Home" in texts


def test_paragraphs_inside_a_data_cell_are_separated_by_a_space() -> None:
    _, structure = normalise(
        "<table><tr><th>A</th></tr><tr><td>one<br>two</td></tr></table>", "text/html"
    )
    assert structure.tables[0].rows == (("one two",),)
