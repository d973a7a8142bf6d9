"""The shared suffix stripper, and the two stemmers built on it."""

from __future__ import annotations

import pytest

from ledger.attribution._words import stem as attribution_stem
from ledger.gate.lexicon.words import stem as gate_stem
from ledger.text.stemming import strip_suffix

SUFFIXES = (("ies", "y"), ("ed", ""), ("s", ""))


@pytest.mark.parametrize("word", ["tax", "2019", "1st", "class", "census", "analysis"])
def test_short_words_numbers_and_false_plurals_are_kept(word: str) -> None:
    assert strip_suffix(word, SUFFIXES) is None


@pytest.mark.parametrize(
    ("word", "stem"),
    [("companies", "company"), ("rates", "rate"), ("planned", "plan"), ("shares", "shar")],
)
def test_one_suffix_then_a_final_e_and_a_doubled_consonant(word: str, stem: str) -> None:
    assert strip_suffix(word, SUFFIXES) == stem


@pytest.mark.parametrize("words", [("approved", "approves", "approving"), ("elects", "electing")])
def test_both_stemmers_make_inflections_meet(words: tuple[str, ...]) -> None:
    for stem in (gate_stem, attribution_stem):
        assert len({stem(w) for w in words}) == 1


def test_only_the_gate_folds_british_spellings_and_only_attribution_derivations() -> None:
    assert gate_stem("recognised") == gate_stem("recognized")
    assert attribution_stem("recognised") != attribution_stem("recognized")
    assert attribution_stem("organization") == attribution_stem("organize")
    assert gate_stem("organization") != gate_stem("organize")
    assert gate_stem("analysis") == "analysis"  # a false plural is not folded
