"""Terms of queries and spans as retrieval sees them, and the domain stop words of the gate.

Terms are the re-attribution ranker's (:func:`ledger.attribution._words.terms`: NFKC, case
folding, function words dropped, light stemming, numbers kept whole with ``1,200`` meeting
``1200``), so the sparse ranker, the gate and commit-time repair agree on what a word is.
"""

from __future__ import annotations

from ledger.attribution._words import stem, terms

__all__ = ["DOMAIN_STOP_WORDS", "gate_terms", "terms"]

_DOMAIN_STOP_TEXT = """
    net total per amount amounts value values figure figures number numbers
    million millions billion billions thousand thousands percent percentage
"""
DOMAIN_STOP_WORDS = frozenset(stem(word) for word in _DOMAIN_STOP_TEXT.split())
"""Words that occur in most financial spans and tell none apart (seed 000: "net", "total",
"per"). Kept, "net" lets a query about Net Income score 0.5 against a span about Net Sales;
removed from the query, the same pair scores 0. Stemmed like every other term."""


def gate_terms(text: str) -> list[str]:
    """The terms of ``text`` that count for the lexical gate (domain stop words removed)."""
    return [term for term in terms(text) if term not in DOMAIN_STOP_WORDS]
