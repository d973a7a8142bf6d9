"""Cutting a sentence's words into clauses, against the plain loop over every word."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ledger.gate.alignment.clauses import BREAK_WORDS, clauses
from ledger.gate.alignment.words import Word, words


def _clauses_word_by_word(found: list[Word], *, claim: bool) -> list[list[Word]]:
    """The rule of :func:`clauses`, looking at every word in turn."""
    out: list[list[Word]] = []
    current: list[Word] = []
    comma = False
    for word in found:
        if word.text in {";", ","}:
            if word.text == ";" and current:
                out.append(current)
                current = []
            comma = word.text == ","
            continue
        if current and word.text in BREAK_WORDS and (claim or comma or word.text == "but"):
            out.append(current)
            current = []
        current.append(word)
        comma = False
    if current:
        out.append(current)
    return out


@given(
    st.lists(st.sampled_from(["rose", "sales", "and", "but", "while", "or", ";", ","])),
    st.booleans(),
)
def test_cuts_the_clauses_the_word_by_word_rule_cuts(tokens: list[str], claim: bool) -> None:
    found = words(" ".join(tokens))
    assert clauses(found, claim=claim) == _clauses_word_by_word(found, claim=claim)
