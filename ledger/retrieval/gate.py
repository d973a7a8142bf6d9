"""The lexical gate (seed 000): a deterministic check every candidate passes before it leaves.

Token-intersection recall of the query's terms in the span, not Jaccard: a long span (a
verbose table envelope) would push a union denominator towards zero even when every query
term is there. With ``Q`` the query's gate terms (domain stop words removed,
:data:`~ledger.retrieval.terms.DOMAIN_STOP_WORDS`) and ``C`` the span's terms::

    R_lex = sum over t in set(Q) of min(count(t, Q), count(t, C)) / |Q|

A candidate passes when ``R_lex >= threshold``. The threshold was chosen on the tune half of
the evaluation data only (``benchmarks/retrieval_eval.py --tune``, docs/retrieval.md).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ledger.errors import InvalidInput

GATE_THRESHOLD = 0.15
"""Default ``R_lex`` a candidate needs; tuned on the tune half (docs/retrieval.md)."""

GATE_EXCLUSION = "lexical-gate"
"""The exclusion code of a candidate the gate withheld."""


def lexical_recall(query_terms: Sequence[str], span_terms: Sequence[str]) -> float:
    """``R_lex`` of a span for a query, both as term lists (0.0 for a query with no terms)."""
    if not query_terms:
        return 0.0
    query = Counter(query_terms)
    span = Counter(span_terms)
    shared = sum(min(count, span[term]) for term, count in query.items())
    return shared / len(query_terms)


@dataclass(frozen=True)
class LexicalGate:
    """Passes a candidate whose ``R_lex`` reaches ``threshold`` (0 passes everything)."""

    threshold: float = GATE_THRESHOLD

    def __post_init__(self) -> None:
        if not (math.isfinite(self.threshold) and 0 <= self.threshold <= 1):
            raise InvalidInput(
                "threshold",
                "unit_interval",
                f"the gate threshold must be in [0, 1]; got {self.threshold}",
            )

    def passes(self, query_terms: Sequence[str], span_terms: Sequence[str]) -> bool:
        """Tell whether the span may leave for this query."""
        return lexical_recall(query_terms, span_terms) >= self.threshold
