"""Which source versions a query may see: in force at its moment, not withdrawn, within its
filters, decided over versions rather than spans.

A ledger of a million spans has some tens of thousands of versions, so each process keeps
their few fields in arrays indexed by version key and follows changes (a supersession sets
``effective_to``, a withdrawal ``withdrawn``) by the notification id that made them
(``retrieval_versions.changed_at``). Effective times are ledger-format strings (fixed width,
they sort like the times), compared as fixed-width byte arrays.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

FOREVER = "9999-12-31T23:59:59.999999Z"


class VersionTable:
    """Every version's key, source, authority, effective range and withdrawal."""

    def __init__(self) -> None:
        self.changed_at = 0
        """The latest ``changed_at`` seen: rows changed after it are what to load next."""
        self._size = 0
        self._from = np.zeros(0, dtype="S27")
        self._to = np.zeros(0, dtype="S27")
        self._withdrawn = np.zeros(0, dtype=bool)
        self._known = np.zeros(0, dtype=bool)
        self.sources: list[str] = []
        self.authorities: list[str] = []
        self.numbers: list[int] = []

    def __len__(self) -> int:
        return self._size

    def update(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Take new and changed rows of ``retrieval_versions``."""
        for row in rows:
            key = int(row["version_key"])
            self._grow(key + 1)
            self._from[key] = row["effective_from"].encode()
            self._to[key] = (row["effective_to"] or FOREVER).encode()
            self._withdrawn[key] = bool(row["withdrawn"])
            self._known[key] = True
            self.sources[key] = str(row["source_id"])
            self.authorities[key] = str(row["authority"])
            self.numbers[key] = int(row["version"])
            self.changed_at = max(self.changed_at, int(row["changed_at"]))

    def range_of(self, key: int) -> tuple[str | None, bool]:
        """The version's ``effective_to`` (``None``: still in force) and withdrawal."""
        if key >= self._size:
            return None, False
        to = self._to[key].decode()
        return (None if to == FOREVER else to), bool(self._withdrawn[key])

    def eligible(
        self,
        as_of: str,
        source_ids: Sequence[str] | None = None,
        authorities: Sequence[str] | None = None,
    ) -> npt.NDArray[np.bool_]:
        """One flag per version key: in force at ``as_of``, not withdrawn, within filters."""
        moment = np.bytes_(as_of.encode())
        n = self._size
        mask: npt.NDArray[np.bool_] = (self._from[:n] <= moment) & (moment < self._to[:n])
        mask &= self._known[:n] & ~self._withdrawn[:n]
        if source_ids is not None:
            wanted = set(source_ids)
            mask &= np.fromiter((s in wanted for s in self.sources), dtype=bool, count=n)
        if authorities is not None:
            allowed = set(authorities)
            mask &= np.fromiter((a in allowed for a in self.authorities), dtype=bool, count=n)
        return mask

    def _grow(self, size: int) -> None:
        if size <= self._size:
            return
        capacity = len(self._from)
        if size > capacity:
            capacity = max(size, 2 * capacity, 1024)
            self._from = _resized(self._from, capacity)
            self._to = _resized(self._to, capacity)
            self._withdrawn = _resized(self._withdrawn, capacity)
            self._known = _resized(self._known, capacity)
        extra = size - self._size
        self.sources.extend([""] * extra)
        self.authorities.extend([""] * extra)
        self.numbers.extend([0] * extra)
        self._size = size


def _resized(array: npt.NDArray[Any], capacity: int) -> npt.NDArray[Any]:
    out = np.zeros(capacity, dtype=array.dtype)
    out[: len(array)] = array
    return out
