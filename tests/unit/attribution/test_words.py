"""Terms as re-attribution sees them: folded, stemmed, without stop words, numbers kept."""

from __future__ import annotations

from ledger.attribution._words import stem, terms


def test_drops_stop_words_and_possessives_and_folds_case() -> None:
    assert terms("The Museum's doors of THE city") == ["museum", "door", "city"]


def test_keeps_numbers_whole_and_joins_thousands() -> None:
    assert terms("1,200 visitors in 1998 paid 3.5 euros") == [
        "1200",
        "visitor",
        "1998",
        "paid",
        "3.5",
        "euro",
    ]


def test_makes_inflected_forms_meet() -> None:
    assert stem("approved") == stem("approves") == stem("approving") == stem("approve")
    assert stem("studies") == stem("studied") == "study"


def test_leaves_short_words_and_non_plural_endings_alone() -> None:
    assert [stem(w) for w in ("bus", "class", "census", "analysis")] == [
        "bus",
        "class",
        "census",
        "analysis",
    ]
