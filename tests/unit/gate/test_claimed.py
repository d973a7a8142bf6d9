"""The cue scan of a computational claim, against each case-insensitive cue pattern."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.gate.computation.claimed import (
    _CUE_FIRST_WORDS,
    _CUE_PATTERNS,
    _CUES,
    _cues,
    read_claim,
)


def _cues_by_each_pattern(text: str) -> list[tuple[tuple[int, int], str, int, int]]:
    """Every case-insensitive cue pattern tried at every position."""
    return [
        (match.span(), operation, sign, index)
        for at in range(len(text))
        for index, (pattern, operation, sign) in enumerate(_CUE_PATTERNS)
        if (match := pattern.match(text, at)) is not None
    ]


def _found(text: str) -> list[tuple[tuple[int, int], str, int, int]]:
    return [(match.span(), operation, sign, index) for match, operation, sign, index in _cues(text)]


def test_every_cue_is_written_in_lower_case() -> None:
    assert all(pattern == pattern.lower() for pattern, _, _ in _CUES)


@pytest.mark.parametrize(
    "text",
    [
        "Other sales FELL by 12.6 million from 2018 to 2019.",
        "The Percentage Change in revenue was 4.2%; as a share of total, 12%.",
        "Basis-points increase of 25 bps, in total 3 and adds up to 5",
        "The ratio of A to B is 1.8 times; it averaged 4.2 and Rose by 3",
        "Revenue \u017fum and \u0130ncrease: non-ASCII text takes the case-insensitive scan",
    ],
)
def test_finds_the_cues_a_scan_with_each_pattern_finds(text: str) -> None:
    assert _found(text) == _cues_by_each_pattern(text)


@given(st.lists(st.sampled_from(["Fell", "by", "RATIO", "of", "a", "share", "Change", "up",
                                  "in", "Total", "percentage", "2.5", "-", ",", "sum"]),
                max_size=8))  # fmt: skip
def test_finds_the_cues_a_scan_with_each_pattern_finds_in_any_sentence(words: list[str]) -> None:
    text = " ".join(words)
    assert _found(text) == _cues_by_each_pattern(text)


@pytest.mark.parametrize(
    ("text", "operation"),
    [
        ("The difference in net cash from 2018 to 2019 is -835.", "change"),
        ("The difference in net cash from fiscal 2018 to fiscal 2019 is -835.", "change"),
        ("The difference in net cash between 2018 and 2019 is 835.", "difference"),
        ("The difference in net cash from 2019 to 2018 is 835.", "difference"),
        ("The total percentage of revenue from A and B is 45%.", "percent_total"),
        ("The combined share of A and B is 45%.", "percent_total"),
        ("The total percentage change in shares is -7.8%.", "percent_change"),
        ("The proportion (in percentage) of A over B is 76.1%.", "ratio"),
        ("The weighted average rate change from 2018 to 2019 is 0.5%.", "percent_change"),
        ("The weighted-average rate averaged 2.1%.", "average"),
        ("The average weighted average rate is 2.1%.", "average"),
    ],
)
def test_reads_the_operation_a_claim_names(text: str, operation: str) -> None:
    claim, _ = read_claim(text)
    assert claim is not None
    assert claim.operation == operation


@pytest.mark.parametrize("index", range(len(_CUES)))
@given(data=st.data())
def test_every_cue_begins_with_a_word_listed_for_it(index: int, data: st.DataObject) -> None:
    pattern = _CUES[index][0].replace("(?<!weighted[\\s-])", "")
    written = data.draw(st.from_regex(rf"\A{pattern}\Z", alphabet="abcdefghijklmnopqrstuvwxyz -("))
    first = re.match(r"[a-z]+", written)
    assert first is not None
    assert index in _CUE_FIRST_WORDS[first.group()]
