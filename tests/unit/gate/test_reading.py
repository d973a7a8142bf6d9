"""Shortcuts in reading a text, against the plain scans they stand for."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.gate.alignment import words as aligned_words
from ledger.gate.anchors.reading import _IDENTIFIERS, _NOT_CUES, _identifier_matches, cue_tokens
from ledger.gate.lexicon import words as lexicon_words
from ledger.gate.lexicon.words import _MAY_END, _SENTENCE_END, may_end, sentences, tokens


def _identifiers_by_full_scan(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _IDENTIFIERS.finditer(text)]


@pytest.mark.parametrize(
    "text",
    [
        "Automotive-segment revenue declined 2.2% quarter-on-quarter in Q3 2023.",
        "Other sales fell by 12.6 million from 2018 to 2019.",
        "See 4.2.1(b), 4.2(c) and 12.6; the A320 and COVID-19 fleet, ABC-123 and US0378331005",
        "version 1.2.3 of quarter-on-quarter-on-quarter-on-quarter-data7",
    ],
)
def test_finds_the_identifiers_a_full_scan_finds(text: str) -> None:
    assert [m.span() for m in _identifier_matches(text)] == _identifiers_by_full_scan(text)


@given(st.text(alphabet="Aab1290 .,()-_%$\n", max_size=40))
def test_finds_the_identifiers_a_full_scan_finds_in_any_text(text: str) -> None:
    assert [m.span() for m in _identifier_matches(text)] == _identifiers_by_full_scan(text)


@pytest.mark.parametrize(
    "text",
    [
        "Revenue in May 2020 was not lower; No. 5 and NO. 6 were.",
        "In millions, EXCEPT per share amounts, the loss was not reported.",
        "in Thousands ExCePt where noted",
        "Revenue did not fall.",
    ],
)
def test_cue_tokens_are_the_tokens_left_by_the_not_cue_pattern(text: str) -> None:
    assert cue_tokens(text) == tokens(_NOT_CUES.sub(" ", text))


def _sentences_by_full_split(text: str) -> list[str]:
    return [piece for piece in _SENTENCE_END.split(text) if piece.strip()]


@pytest.mark.parametrize(
    "text",
    [
        "Automotive-segment revenue declined 2.2% quarter-on-quarter in Q3 2023.",
        'Revenue rose. Margins held; costs fell!  Why? 2023 was "good." Then\nnothing',
        "One sentence, no cut: Q3 2023 and 4.5 million.",
        "   ",
    ],
)
def test_cuts_the_sentences_a_full_split_cuts(text: str) -> None:
    assert sentences(text) == _sentences_by_full_split(text)


@given(st.text(alphabet="Aa1 .;!?\"')\n", max_size=40))
def test_cuts_the_sentences_a_full_split_cuts_in_any_text(text: str) -> None:
    assert sentences(text) == _sentences_by_full_split(text)


@given(st.text(alphabet="ab .!?;\"')]\n\t\u2003\x1c", max_size=30))
def test_finds_a_possible_sentence_end_where_the_pattern_does(text: str) -> None:
    assert may_end(text) is bool(_MAY_END.search(text))


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=40))
def test_ascii_token_patterns_find_the_tokens_of_the_unicode_ones(text: str) -> None:
    for module in (lexicon_words, aligned_words):
        assert module._ASCII_TOKEN.findall(text) == module._TOKEN.findall(text)
