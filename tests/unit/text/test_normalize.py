"""Normalisation of plain text, Markdown and HTML into frozen text and structure."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.errors import InvalidInput
from ledger.text.normalize import MEDIA_TYPES, Heading, normalise


def test_composes_text_into_nfc() -> None:
    frozen, _ = normalise("Cafe\u0301 au lait", "text/plain")
    assert frozen == "Caf\u00e9 au lait"


def test_turns_crlf_and_cr_into_lf() -> None:
    frozen, _ = normalise("one\r\ntwo\rthree", "text/plain")
    assert frozen == "one\ntwo\nthree"


def test_strips_a_leading_byte_order_mark() -> None:
    frozen, _ = normalise("\ufeffHello.", "text/plain")
    assert frozen == "Hello."


def test_removes_control_characters_but_keeps_tab_newline_and_form_feed() -> None:
    frozen, _ = normalise("a\x00b\x1bc\x7fd\x85e\tf\ng\fh", "text/plain")
    assert frozen == "abcde\tf\ng\fh"


def test_keeps_form_feeds_as_page_breaks() -> None:
    frozen, structure = normalise("Page one.\fPage two.\fPage three.", "text/plain")
    assert structure.page_breaks == (9, 19)
    assert [frozen[s:e] for s, e in structure.paragraphs] == [
        "Page one.",
        "Page two.",
        "Page three.",
    ]


def test_strips_trailing_whitespace_and_limits_blank_runs_to_two() -> None:
    frozen, _ = normalise("\n\nA.   \n\n\n\n\nB. \t\n\n", "text/plain")
    assert frozen == "A.\n\n\nB."


def test_does_not_reflow_or_change_quotes_and_dashes() -> None:
    raw = "\u201cQuoted\u201d \u2014 text\nwrapped -- here 'single'"
    assert normalise(raw, "text/plain")[0] == raw


def test_normalising_frozen_text_again_changes_nothing() -> None:
    frozen, _ = normalise("# Title\n\nSome *text*.\r\n\fMore.", "text/markdown")
    assert normalise(frozen, "text/plain")[0] == frozen


def test_records_markdown_atx_and_setext_headings_with_levels() -> None:
    raw = "Top\n===\n\nIntro.\n\n## Returns ##\nText.\n\nDamaged\n-------\n\n###### Deep"
    frozen, structure = normalise(raw, "text/markdown")
    assert frozen == "Top\n\nIntro.\n\nReturns\nText.\n\nDamaged\n\nDeep"
    assert structure.headings == (
        Heading(0, 1, "Top"),
        Heading(13, 2, "Returns"),
        Heading(28, 2, "Damaged"),
        Heading(37, 6, "Deep"),
    )


def test_strips_markdown_emphasis_code_and_link_syntax() -> None:
    raw = "A **bold**, *em*, `code` and [the site](https://x.example/a_b) with snake_case_name."
    frozen, _ = normalise(raw, "text/markdown")
    assert frozen == "A bold, em, code and the site with snake_case_name."


def test_keeps_markdown_list_items_as_separate_paragraphs() -> None:
    frozen, structure = normalise("Items:\n- one\n- two\n1. three", "text/markdown")
    assert [frozen[s:e] for s, e in structure.paragraphs] == [
        "Items:",
        "- one",
        "- two",
        "1. three",
    ]


def test_keeps_fenced_code_verbatim() -> None:
    frozen, _ = normalise("```\nx = *y*\n```\nAfter.", "text/markdown")
    assert frozen == "x = *y*\n\nAfter."


def test_turns_html_headings_paragraphs_and_lists_into_lines() -> None:
    raw = (
        "<html><head><title>T</title><style>p{}</style></head><body>"
        "<h1>Main &amp; more</h1><p>Para   one.<br>Line two.</p>"
        "<h2>Sub</h2><ul><li>a &lt; b</li><li>c&nbsp;d</li></ul>"
        "<script>var x = '<p>no</p>';</script></body></html>"
    )
    frozen, structure = normalise(raw, "text/html")
    assert frozen == "Main & more\n\nPara one.\nLine two.\n\nSub\n\na < b\n\nc\u00a0d"
    assert structure.headings == (Heading(0, 1, "Main & more"), Heading(34, 2, "Sub"))
    assert [frozen[s:e] for s, e in structure.paragraphs] == [
        "Main & more",
        "Para one.\nLine two.",
        "Sub",
        "a < b",
        "c\u00a0d",
    ]


def test_takes_an_html_table_out_of_the_text_as_a_table() -> None:
    frozen, structure = normalise(
        "<p>Before.</p><table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>"
        "<p>After.</p>",
        "text/html",
    )
    assert frozen == "Before.\n\nAfter."
    (table,) = structure.tables
    assert (table.table_id, table.header_rows, table.rows) == (
        "doc-1",
        (("A", "B"),),
        (("1", "2"),),
    )


def test_rejects_an_unknown_media_type() -> None:
    with pytest.raises(InvalidInput, match="media_type must be one of") as caught:
        normalise("text", "application/pdf")
    assert (caught.value.field, caught.value.rule) == ("media_type", "supported")


@pytest.mark.parametrize("media_type", MEDIA_TYPES)
def test_rejects_a_source_with_only_whitespace(media_type: str) -> None:
    with pytest.raises(InvalidInput, match="no text once normalised") as caught:
        normalise(" \n\t\f\r\n\x00 ", media_type)
    assert (caught.value.field, caught.value.rule) == ("text", "empty")


def test_rejects_html_whose_only_text_is_script() -> None:
    with pytest.raises(InvalidInput) as caught:
        normalise("<script>alert(1)</script>", "text/html")
    assert caught.value.rule == "empty"


@given(st.text(), st.sampled_from(MEDIA_TYPES))
def test_frozen_text_is_nfc_and_structure_points_into_it(raw: str, media_type: str) -> None:
    try:
        frozen, structure = normalise(raw, media_type)
    except InvalidInput:
        return
    assert unicodedata.is_normalized("NFC", frozen)
    assert "\r" not in frozen
    for heading in structure.headings:
        assert frozen[heading.start :].startswith(heading.title)
    previous_end = 0
    for start, end in structure.paragraphs:
        assert previous_end <= start < end
        previous_end = end
    covered = {i for start, end in structure.paragraphs for i in range(start, end)}
    assert all(char.isspace() or i in covered for i, char in enumerate(frozen))
    assert structure.page_breaks == tuple(i for i, char in enumerate(frozen) if char == "\f")
