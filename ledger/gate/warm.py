"""What the gate holds per process: the tables it loads before the first claim arrives, and
what it remembers of the spans it has read.

The first judgement in a process reads the WordNet antonym pointers (about a second) and fills
the gate's other per-process tables. Left to the first request, that second lands on a
caller's commit; the service calls :func:`warm_up` while it starts, before it reports ready.
Span texts are immutable, so the gate keeps what it read of each (bounded LRU caches of
:data:`~ledger.gate.anchors.reading.SPAN_CACHE_SIZE` entries); :func:`forget_spans` empties
them, for a benchmark that times reading spans afresh.
"""

from __future__ import annotations

from ledger.gate.alignment.clauses import span_clauses
from ledger.gate.alignment.matching import cell_keys
from ledger.gate.anchors.reading import read_span
from ledger.gate.citation.bindings import _span_exists, _version_in_force
from ledger.gate.citation.quote import _normalised_span, _quoted
from ledger.gate.computation.operands import cited_operands, sentence_subjects, span_figures
from ledger.gate.factual import _agrees_at
from ledger.gate.gate import judge
from ledger.gate.model import Binding, ClaimDraft, ClaimType, SpanFacts, Status
from ledger.gate.support.lines import _head_line_stems

_SPAN = "Revenue rose from $4.0 million to $4.5 million in 2023, and the margin was not reduced."
_CLAIMS = (
    ClaimDraft(_SPAN, bindings=(Binding("warm", quote=_SPAN),)),
    ClaimDraft(
        "Revenue rose by $0.5 million in 2023.",
        type=ClaimType.COMPUTATIONAL,
        bindings=(Binding("warm"),),
    ),
)
_SPAN_CACHES = (
    read_span,
    span_clauses,
    cell_keys,
    span_figures,
    cited_operands,
    sentence_subjects,
    _head_line_stems,
    _normalised_span,
    _quoted,
    _agrees_at,
    _span_exists,
    _version_in_force,
)
"""Every cache keyed by a span's text or id (or by what a claim aligned to in one)."""


def warm_up() -> tuple[Status, ...]:
    """Judge a verbatim and a computed claim over one built-in span; their statuses (both
    ``verified`` when the gate's tables loaded as they should)."""
    facts = {"warm": SpanFacts("warm", True, True, True, False, _SPAN)}
    return tuple(judge(claim, facts).status for claim in _CLAIMS)


def forget_spans() -> None:
    """Forget every span read so far: the next judgement reads its spans afresh."""
    for cache in _SPAN_CACHES:
        cache.cache_clear()
