"""Rebuild every read model from the log up to a point, into a fresh SQLite database.

``provledger replay --until <RFC 3339 time | position> --out DIR`` walks the log in
notification order, re-verifies each event's signature and chain link on the way (the same
checks as ``provledger verify``), applies it to the registry and receipts projections, and
stops after the last event recorded at or before the time (or with an id at or below the
position). It prints a digest of the rebuilt rows on its last line: the same digest the live
read models give when read as of that point.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from eventsourcing.persistence import ApplicationRecorder
from sqlalchemy import create_engine, event

from ledger.audit.log_verify import (
    FailureReason,
    LogVerifier,
    StoredRow,
    bad_signature_detail,
    iter_pages,
)
from ledger.crypto.signing import Keyring
from ledger.errors import EventCheckFailed, InvalidInput, ReplayError
from ledger.eventlog import signature_pool
from ledger.eventlog.signature_pool import SignatureChecks
from ledger.eventlog.store import SignedMapper
from projections.catalog import REPLAYED, REPLAYED_TABLES, ProjectionParts
from projections.digest import tables_digest
from projections.log_rows import LogRow, read_rows
from projections.runner import Projection
from projections.schema import metadata, tracking

BATCH = 1000


@dataclass
class ReplayResult:
    """What a replay rebuilt."""

    events: int
    last_position: int
    last_recorded_at: str | None
    digest: str
    seconds: float
    database: Path


def parse_until(text: str) -> tuple[int | None, str | None]:
    """``--until``: a position (digits) or an RFC 3339 time, normalised to ledger time."""
    if text.isdigit():
        return int(text), None
    from datetime import datetime

    from ledger.eventlog.clock import ledger_time

    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(
            "until", "rfc3339", f"not a position or RFC 3339 time: {text!r}"
        ) from None
    return None, ledger_time("until", moment)


def _recorded_at(notification: StoredRow) -> str:
    try:
        return str(json.loads(notification.state)["body"]["recorded_at"])
    except (ValueError, KeyError, TypeError):
        return ""


def _failure(notification: StoredRow, reason: FailureReason, detail: str) -> ReplayError:
    return ReplayError(
        f"notification {notification.id} ({notification.originator_id} "
        f"v{notification.originator_version}): {reason.value}: {detail}"
    )


def _scratch_pragmas(dbapi_connection: Any, _: Any) -> None:
    """A fresh file no one reads until the replay ends: journal in memory (a failed batch
    still rolls back) and no fsync per commit. A crash leaves a partial file, as any failure
    does, and a replay refuses to write over an existing one."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=MEMORY")
    cursor.execute("PRAGMA synchronous=OFF")
    cursor.close()


class _Rebuild:
    """The read models being rebuilt: events are applied in batches, and a batch commits
    only once every signature handed in so far has verified."""

    def __init__(
        self, path: Path, mapper: SignedMapper, signatures: SignatureChecks[tuple[LogRow, str]]
    ):
        self.engine = create_engine(f"sqlite+pysqlite:///{path}")
        event.listen(self.engine, "connect", _scratch_pragmas)
        metadata.create_all(self.engine)
        parts = ProjectionParts(self.engine)
        self.projections: list[Projection] = [model.build(parts) for model in REPLAYED]
        self.topics = {topic: p for p in self.projections for topic in p.topics}
        self.mapper = mapper
        self.signatures = signatures
        self.batch: list[tuple[LogRow, dict[str, Any]]] = []

    def add(self, notification: LogRow, body: dict[str, Any]) -> None:
        if notification.topic in self.topics:
            self.batch.append((notification, body))
            if len(self.batch) >= BATCH:
                self.flush()

    def settle(self) -> None:
        """Raise for the earliest event whose signature failed, if any."""
        bad = self.signatures.settle()
        if bad is not None:
            row, kid = bad
            raise _failure(row, FailureReason.BAD_SIGNATURE, bad_signature_detail(kid))

    def flush(self) -> None:
        with self.engine.begin() as conn:
            for notification, body in self.batch:
                event_ = self.mapper.from_body(notification.topic, body)
                self.topics[notification.topic].apply(conn, event_, notification)
            for projection in self.projections:
                projection.flush(conn)
            self.settle()  # nothing commits before every signature in it has verified
        self.batch.clear()

    def finish(self, last: int) -> str:
        """Record the position reached; the digest of the rebuilt rows."""
        with self.engine.begin() as conn:
            for projection in self.projections:
                conn.execute(tracking.insert().values(projection=projection.name, position=last))
        digest = tables_digest(self.engine, REPLAYED_TABLES)
        self.engine.dispose()
        return digest


def replay(
    recorder: ApplicationRecorder,
    mapper: SignedMapper,
    keyring: Keyring,
    out_dir: Path,
    until_position: int | None = None,
    until_time: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> ReplayResult:
    """Verify and project the log up to the bound into ``out_dir/readmodels.sqlite3``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "readmodels.sqlite3"
    if path.exists():
        raise InvalidInput("out", "fresh", f"{path} exists; replay writes a fresh database")
    verifier = LogVerifier(keyring)
    started = time.perf_counter()
    count, last, last_time = 0, 0, None
    with SignatureChecks[tuple[LogRow, str]](
        keyring, chunk=signature_pool.CHUNK, parallel_after=signature_pool.PARALLEL_AFTER
    ) as signatures:
        rebuild = _Rebuild(path, mapper, signatures)
        for notification in iter_pages(partial(read_rows, recorder)):
            if until_position is not None and notification.id > until_position:
                break
            try:
                sealed = verifier.check_links(notification)  # parsed once, reused below
            except EventCheckFailed as failed:
                if until_time is not None and _recorded_at(notification) > until_time:
                    break  # past the bound: not part of the replay, so not its failure
                rebuild.settle()  # an earlier event's bad signature is the first failure
                raise _failure(notification, FailureReason(failed.reason), failed.detail) from None
            body = sealed.body
            if until_time is not None and body["recorded_at"] > until_time:
                break
            signatures.add((notification, sealed.kid), sealed)
            count, last, last_time = count + 1, notification.id, body["recorded_at"]
            rebuild.add(notification, body)
            if progress is not None and count % 5000 == 0:
                progress(notification.id)
        rebuild.flush()
    digest = rebuild.finish(last)
    return ReplayResult(count, last, last_time, digest, time.perf_counter() - started, path)
