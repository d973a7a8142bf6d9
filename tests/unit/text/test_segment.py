"""Sentence and clause segmentation: hard cases by name, coverage as a property."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.text.segment import split_clauses, split_sentences

HARD_CASES: list[tuple[str, str, list[str]]] = [
    ("titles", "Dr. Smith met Mr. Jones and Mrs. Lee. They talked.",
     ["Dr. Smith met Mr. Jones and Mrs. Lee.", "They talked."]),
    ("title-after-sentence-end", "It was late. Dr. Smith arrived. Prof. Adams left.",
     ["It was late.", "Dr. Smith arrived.", "Prof. Adams left."]),
    ("company-suffixes", "Apple Inc. reported results. Acme Ltd. and Foo Co. did too.",
     ["Apple Inc. reported results.", "Acme Ltd. and Foo Co. did too."]),
    ("country-abbreviations", "The U.S. economy grew faster than the U.K. economy. Both slowed.",
     ["The U.S. economy grew faster than the U.K. economy.", "Both slowed."]),
    ("latin-abbreviations", "Use tools, e.g. hammers, i.e. heavy ones, etc. in the shed. Fine.",
     ["Use tools, e.g. hammers, i.e. heavy ones, etc. in the shed.", "Fine."]),
    ("versus-and-number", "Smith vs. Jones was decided. No. 5 was next.",
     ["Smith vs. Jones was decided.", "No. 5 was next."]),
    ("figure-and-section", "See Fig. 3 and Sec. 2 for details. Done.",
     ["See Fig. 3 and Sec. 2 for details.", "Done."]),
    ("months", "It happened on Jan. 5 and again in Feb. 2021. Then it stopped.",
     ["It happened on Jan. 5 and again in Feb. 2021.", "Then it stopped."]),
    ("saint", "Prof. Adams spoke. St. Louis was cold.",
     ["Prof. Adams spoke.", "St. Louis was cold."]),
    ("money", "The company earned $4.5 million in 2023. Costs were $1.25 per unit.",
     ["The company earned $4.5 million in 2023.", "Costs were $1.25 per unit."]),
    ("percent-and-decimal", "Margins rose 2.2% to 3.14 points. Good.",
     ["Margins rose 2.2% to 3.14 points.", "Good."]),
    ("section-reference", "See section 4.2.1(b) of the contract. It applies.",
     ["See section 4.2.1(b) of the contract.", "It applies."]),
    ("section-sign", "Under \u00a7 12.3 the duty applies. It is strict.",
     ["Under \u00a7 12.3 the duty applies.", "It is strict."]),
    ("version-number", "Release 2.10.1 fixed it. Upgrade to v3.0 now.",
     ["Release 2.10.1 fixed it.", "Upgrade to v3.0 now."]),
    ("initials", "J. R. R. Tolkien wrote books. He was English.",
     ["J. R. R. Tolkien wrote books.", "He was English."]),
    ("bullet-list", "Intro:\n- first item\n- second item\nAfter the list.",
     ["Intro:", "- first item", "- second item", "After the list."]),
    ("numbered-list", "1. First item\n2. Second item. It has two sentences.",
     ["1. First item", "2. Second item.", "It has two sentences."]),
    ("lettered-list", "(a) the buyer pays\n(b) the seller delivers",
     ["(a) the buyer pays", "(b) the seller delivers"]),
    ("quote-ends-sentence", 'He said "Stop." Then he left.', ['He said "Stop."', "Then he left."]),
    ("curly-quote-question", "She asked, \u201cIs it done?\u201d He nodded.",
     ["She asked, \u201cIs it done?\u201d", "He nodded."]),
    ("quote-inside-sentence", 'He said "Stop. Now." and left. Then silence.',
     ['He said "Stop. Now." and left.', "Then silence."]),
    ("quoted-question-reported", '"Is it true?" she asked. Yes.',
     ['"Is it true?" she asked.', "Yes."]),
    ("markdown-heading", "# Returns\nWe accept returns. Ask first.",
     ["# Returns", "We accept returns.", "Ask first."]),
    ("blank-line-ends-paragraph", "Overview\n\nThe plan is simple. It works.",
     ["Overview", "The plan is simple.", "It works."]),
    ("wrapped-line", "This sentence is wrapped\nacross two lines. Next one.",
     ["This sentence is wrapped\nacross two lines.", "Next one."]),
    ("ellipsis-ends-sentence", "He waited... Then he left.", ["He waited...", "Then he left."]),
    ("ellipsis-inside-sentence", "Wait... what happened? Nobody knows!",
     ["Wait... what happened?", "Nobody knows!"]),
    ("question-and-exclamation", "Hello! How are you? Fine.", ["Hello!", "How are you?", "Fine."]),
    ("no-final-punctuation", "The first sentence. The last one has no stop",
     ["The first sentence.", "The last one has no stop"]),
    ("form-feed-is-a-page-break", "Page one ends\fPage two starts.",
     ["Page one ends", "Page two starts."]),
    ("unicode", "\u00c9mile Zola \u00e9tait l\u00e0. Il pleuvait.",
     ["\u00c9mile Zola \u00e9tait l\u00e0.", "Il pleuvait."]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "expected"), [case[1:] for case in HARD_CASES], ids=[case[0] for case in HARD_CASES]
)
def test_splits_hard_case_into_expected_sentences(text: str, expected: list[str]) -> None:
    assert [text[start:end] for start, end in split_sentences(text)] == expected


def test_splits_only_inside_the_given_range() -> None:
    text = "Ignore me. Take this. And this. Not this."
    start = text.index("Take")
    end = text.index("Not") - 1
    assert [text[s:e] for s, e in split_sentences(text, start, end)] == ["Take this.", "And this."]


def test_rejects_a_range_outside_the_text() -> None:
    with pytest.raises(ValueError, match="outside a text of length 3"):
        split_sentences("abc", 1, 9)


_texty = st.text(
    alphabet=st.sampled_from(list("ab Z.?!\"'\u201d\n\f\t-1(;:,)\u00e9\u0301\u00a7$%#*"))
    | st.characters(),
    max_size=200,
)


def _assert_covers_exactly_once(
    text: str, start: int, end: int, pieces: list[tuple[int, int]]
) -> None:
    covered = [0] * len(text)
    previous_end = start
    for s, e in pieces:
        assert previous_end <= s < e <= end
        assert not text[s].isspace()
        assert not text[e - 1].isspace()
        for index in range(s, e):
            covered[index] += 1
        previous_end = e
    for index in range(start, end):
        if text[index].isspace():
            assert covered[index] <= 1
        else:
            assert covered[index] == 1, (index, text[index])


@given(_texty)
def test_sentences_cover_every_non_whitespace_character_exactly_once(text: str) -> None:
    _assert_covers_exactly_once(text, 0, len(text), split_sentences(text))


@given(_texty, st.integers(min_value=1, max_value=60))
def test_clauses_cover_every_non_whitespace_character_exactly_once(text: str, limit: int) -> None:
    _assert_covers_exactly_once(text, 0, len(text), split_clauses(text, 0, len(text), limit))


LONG = (
    "The board approved the budget; however, the finance committee, which met on Tuesday, "
    "raised concerns about capital spending, and the chair asked for a revised plan - to be "
    "circulated before the next meeting: no date was set."
)


def test_splits_a_long_sentence_into_clauses_within_the_limit() -> None:
    clauses = [LONG[s:e] for s, e in split_clauses(LONG, 0, len(LONG), 80)]
    assert all(len(clause) <= 80 for clause in clauses)
    assert clauses[0] == "The board approved the budget;"
    assert "".join(clauses).replace(" ", "") == LONG.replace(" ", "")


def test_prefers_semicolons_over_commas_when_splitting_clauses() -> None:
    text = "First part, with a comma; second part, with another comma."
    assert [text[s:e] for s, e in split_clauses(text, 0, len(text), 35)] == [
        "First part, with a comma;",
        "second part, with another comma.",
    ]


def test_keeps_an_unbreakable_run_longer_than_the_limit_whole() -> None:
    text = "x" * 50 + "; short"
    assert [text[s:e] for s, e in split_clauses(text, 0, len(text), 20)] == [
        "x" * 50 + ";",
        "short",
    ]


def test_returns_a_short_sentence_as_one_clause() -> None:
    assert split_clauses("  Short one.  ", 0, 14, 100) == [(2, 12)]
