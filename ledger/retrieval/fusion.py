"""Reciprocal Rank Fusion (Cormack, Clarke and Buettcher, SIGIR 2009).

For rankings ``c`` with weights ``w_c``::

    RRF(d) = sum over c of w_c / (k + rank_c(d))

with ``k = 60``, the paper's constant. Ranks, not scores, are fused: BM25 scores are unbounded
and cosine similarities lie in [-1, 1], so any weighted sum of raw scores lets one dominate.
A document absent from a ranking contributes nothing from it. Ties are broken by the
document's best rank in any ranking, then by its key, so the order is a pure function of the
inputs.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

from ledger.errors import InvalidInput

RRF_K = 60
"""The RRF constant: large enough that the first few ranks do not swamp the rest."""

K = TypeVar("K", bound=Hashable)


def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[K]],
    k: int = RRF_K,
    weights: Mapping[str, float] | None = None,
) -> list[tuple[K, float]]:
    """Fuse ``rankings`` (name -> keys, best first) into ``(key, rrf score)``, best first."""
    if k < 0:
        raise InvalidInput("k", "non_negative", f"the RRF constant must be >= 0; got {k}")
    scores: dict[K, float] = {}
    best: dict[K, int] = {}
    for name, ranking in rankings.items():
        weight = 1.0 if weights is None else weights.get(name, 1.0)
        for position, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + weight / (k + position)
            best[key] = min(best.get(key, position), position)
    return sorted(scores.items(), key=lambda item: (-item[1], best[item[0]], str(item[0])))
