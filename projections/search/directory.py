"""The search index's folder: Tantivy segments and dense arrays, kept level with the
retrieval read model's rows by whichever process gets there first.

The retrieval projection writes each span once, in one transaction with its tracking
position, as a row with the next document number (``retrieval_spans.row_id``: 0, 1, 2, ...).
Those rows are the journal the index follows: :meth:`IndexDirectory.follow` takes the rows
past the number it holds, in order and without gaps, adds them to Tantivy and to the dense
arrays, commits both, and only then records the new count in ``state.json`` (written to a
temporary file and renamed). A follower that stops half-way leaves documents past the count;
the next one deletes them from Tantivy and cuts them off the arrays before it appends, so a
row is in the index exactly once. A rebuild of the read model starts a new epoch; the next
follower builds the index again in a folder of that epoch and removes the old one.

One follower at a time, across processes: an exclusive ``flock`` on ``writer.lock``. Readers
take no lock: they map the count that ``state.json`` names.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ledger.errors import ConfigurationError
from projections.search.arrays import SpanAppender, SpanArrays
from projections.search.lexical import LexicalReader, LexicalWriter

CHUNK = 5_000
"""Rows read and appended at a time while following."""
STATE = "state.json"
NO_MODEL = "none"


@dataclass(frozen=True)
class IndexState:
    """What the index holds: the read model's epoch, the rows taken, the dense model."""

    epoch: str
    rows: int
    model: str

    @property
    def folder(self) -> str:
        """The folder of this epoch's files."""
        return f"epoch-{self.epoch or 'first'}"


RowSource = Callable[[int, int], Sequence[Mapping[str, Any]]]
"""``rows(first, limit)``: rows of ``retrieval_spans`` from document number ``first`` on, in
order, at most ``limit`` (their ``row_id``, ``version_key``, ``terms``, ``vector``,
``tokens`` and ``model``)."""


@dataclass(frozen=True)
class Snapshot:
    """The index as one state names it: its searcher and its mapped arrays."""

    state: IndexState
    lexical: LexicalReader
    arrays: SpanArrays


class IndexDirectory:
    """The index at ``path``: follow the rows, read the latest state."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._snapshot: Snapshot | None = None
        self._seen: tuple[int, int] | None = None
        self._lock = threading.Lock()

    def state(self) -> IndexState | None:
        """The recorded state (``None`` before the first follow)."""
        try:
            raw = json.loads((self.path / STATE).read_text())
        except FileNotFoundError:
            return None
        return IndexState(str(raw["epoch"]), int(raw["rows"]), str(raw["model"]))

    def follow(self, epoch: str, rows: RowSource) -> IndexState:
        """Take every row past the index's count (of ``epoch``; another epoch's index is
        replaced); return the state reached."""
        self.path.mkdir(parents=True, exist_ok=True)
        with _exclusive(self.path / "writer.lock"):
            state = self.state()
            stale = state if state is not None and state.epoch != epoch else None
            if state is None or stale is not None:
                state = IndexState(epoch, 0, NO_MODEL)
                shutil.rmtree(self.path / state.folder, ignore_errors=True)
            reached = self._append(state, rows)
            if reached != state or stale is not None or not (self.path / STATE).exists():
                self._record(reached)
            if stale is not None and stale.folder != reached.folder:
                shutil.rmtree(self.path / stale.folder, ignore_errors=True)
            return reached

    def _append(self, state: IndexState, rows: RowSource) -> IndexState:
        folder = self.path / state.folder
        batch = rows(state.rows, CHUNK)
        if not batch:
            return state
        lexical = LexicalWriter(folder / "lexical")
        lexical.drop_from(state.rows)
        arrays = SpanAppender(folder / "arrays", state.rows)
        count, model = state.rows, state.model
        try:
            while batch:
                for row in batch:
                    if int(row["row_id"]) != count:
                        raise ConfigurationError(
                            f"the retrieval rows skip from document {count} to "
                            f"{row['row_id']}: run `provledger projections rebuild`"
                        )
                    if model not in (NO_MODEL, row["model"]):
                        raise ConfigurationError(
                            f"retrieval rows hold vectors of {model} and {row['model']}: "
                            "run `provledger projections rebuild`"
                        )
                    model = str(row["model"])
                    lexical.add(count, row["terms"])
                    arrays.add(
                        row["vector"], int(row["version_key"]), row["tokens"] or b"", row["terms"]
                    )
                    count += 1
                arrays.flush()
                batch = rows(count, CHUNK) if len(batch) == CHUNK else []
            lexical.commit()
        except BaseException:
            lexical.abandon()
            raise
        return IndexState(state.epoch, count, model)

    def _record(self, state: IndexState) -> None:
        body = {"epoch": state.epoch, "rows": state.rows, "model": state.model}
        temporary = self.path / f"{STATE}.{os.getpid()}"
        temporary.write_text(json.dumps(body) + "\n")
        temporary.replace(self.path / STATE)

    def snapshot(self) -> Snapshot | None:
        """The index as its recorded state names it (reopened only when that changed)."""
        try:
            seen = (self.path / STATE).stat()
        except FileNotFoundError:
            return None
        key = (seen.st_mtime_ns, seen.st_ino)
        with self._lock:
            if self._snapshot is not None and self._seen == key:
                return self._snapshot
            state = self.state()
            if state is None:
                return None
            folder = self.path / state.folder
            previous = self._snapshot
            if previous is not None and previous.state.folder == state.folder:
                lexical = previous.lexical
                lexical.reload()
            else:
                lexical = LexicalReader(folder / "lexical")
            self._snapshot = Snapshot(
                state, lexical, SpanArrays(folder / "arrays", state.rows, state.model)
            )
            self._seen = key
            return self._snapshot


@contextmanager
def _exclusive(path: Path) -> Iterator[None]:
    with path.open("a+") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
