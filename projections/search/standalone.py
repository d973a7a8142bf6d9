"""A search index over spans held in memory, without a read model: what the evaluation and
the speed benchmark measure the service's engine with (``benchmarks.retrieval_eval``).

The spans get document numbers in the order given and one version key per (source,
version); the folder is filled through the same follower the service uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ledger.retrieval.dense import Tokens, Vectors
from ledger.retrieval.index import IndexedSpan
from projections.search.directory import IndexDirectory
from projections.search.engine import EngineIndex
from projections.search.versions import VersionTable


def standalone_index(
    path: Path,
    spans: Sequence[IndexedSpan],
    terms: Sequence[Sequence[str]],
    vectors: Vectors,
    tokens: Sequence[Tokens],
    model: str,
) -> EngineIndex:
    """An index at ``path`` (a new folder) over ``spans`` with their terms, unit vectors and
    token ids, as the projection stores them."""
    keys: dict[tuple[str, int], int] = {}
    versions = VersionTable()
    version_rows = []
    for span in spans:
        if (span.source_id, span.version) not in keys:
            key = keys[(span.source_id, span.version)] = len(keys)
            version_rows.append(
                {
                    "version_key": key,
                    "source_id": span.source_id,
                    "version": span.version,
                    "authority": span.authority,
                    "effective_from": span.effective_from,
                    "effective_to": span.effective_to,
                    "withdrawn": span.withdrawn,
                    "changed_at": 1,
                }
            )
    versions.update(version_rows)
    packed = np.asarray(vectors, dtype=np.float16)
    rows = [
        {
            "row_id": i,
            "version_key": keys[(span.source_id, span.version)],
            "terms": list(terms[i]),
            "vector": packed[i].tobytes(),
            "tokens": np.asarray(tokens[i], dtype="<u2").tobytes(),
            "model": model,
        }
        for i, span in enumerate(spans)
    ]

    def rows_from(first: int, limit: int) -> Sequence[Mapping[str, Any]]:
        return rows[first : first + limit]

    directory = IndexDirectory(path)
    directory.follow("standalone", rows_from)
    found = {i: (span, list(terms[i])) for i, span in enumerate(spans)}

    def fetch(keys: Sequence[int]) -> Mapping[int, tuple[IndexedSpan, Sequence[str]]]:
        return {key: found[key] for key in keys}

    return EngineIndex(directory.snapshot(), versions, fetch)
