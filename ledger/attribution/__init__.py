"""Re-attribution and after-the-fact span location, without storage.

* :mod:`ledger.attribution.ranker`: Okapi BM25 over a pool of candidate spans.
* :mod:`ledger.attribution.repair`: :func:`find_repair` rebinds a claim to a span of the sealed
  pool that the commit gate verifies it against, or reports every attempt that failed.
* :mod:`ledger.attribution.locate`: :func:`locate` narrows an answer's chunk-level citations
  (``[1]``) down to one sentence span each, or to none when the evidence is too thin or
  points at more than one span.

See ``docs/attribution.md`` for the algorithms and their evaluation on WiCE.
"""

from __future__ import annotations

from ledger.attribution.locate import (
    DEFAULT_CONFIDENCE,
    DEFAULT_THRESHOLD,
    Chunk,
    Located,
    locate,
)
from ledger.attribution.ranker import Bm25Ranker, Candidate, Ranked
from ledger.attribution.repair import MAX_ATTEMPTS, RepairAttempt, RepairOutcome, find_repair

__all__ = [
    "DEFAULT_CONFIDENCE",
    "DEFAULT_THRESHOLD",
    "MAX_ATTEMPTS",
    "Bm25Ranker",
    "Candidate",
    "Chunk",
    "Located",
    "Ranked",
    "RepairAttempt",
    "RepairOutcome",
    "find_repair",
    "locate",
]
