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
from pathlib import Path
from typing import Any

from eventsourcing.persistence import ApplicationRecorder, Notification
from sqlalchemy import create_engine, event

from ledger.errors import InvalidInput, LedgerError
from ledger.signing import Keyring
from ledger.store import SignedMapper
from ledger.verify import EventCheckFailed, LogVerifier, iter_log
from projections.database import sqlite_pragmas
from projections.digest import tables_digest
from projections.receipts import ReceiptsProjection
from projections.registry import RegistryProjection
from projections.runner import Projection
from projections.schema import RECEIPT_TABLES, REGISTRY_TABLES, metadata, tracking

BATCH = 1000


class ReplayError(LedgerError):
    """The log failed verification during replay (names the event and the reason)."""


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

    from ledger.store import format_time

    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(
            "until", "rfc3339", f"not a position or RFC 3339 time: {text!r}"
        ) from None
    if moment.tzinfo is None:
        raise InvalidInput("until", "timezone", "--until time must carry a UTC offset")
    return None, format_time(moment)


def _recorded_at(notification: Notification) -> str:
    try:
        return str(json.loads(notification.state)["body"]["recorded_at"])
    except (ValueError, KeyError, TypeError):
        return ""


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
    engine = create_engine(f"sqlite+pysqlite:///{path}")
    event.listen(engine, "connect", sqlite_pragmas)
    metadata.create_all(engine)
    projections: list[Projection] = [RegistryProjection(), ReceiptsProjection()]
    topics = {topic: p for p in projections for topic in p.topics}
    verifier = LogVerifier(keyring)
    started = time.perf_counter()
    count, last, last_time = 0, 0, None
    batch: list[tuple[Notification, dict[str, Any]]] = []

    def flush() -> None:
        with engine.begin() as conn:
            for notification, body in batch:
                projection = topics[notification.topic]
                projection.apply(conn, mapper.from_body(notification.topic, body), notification)
            for projection in projections:
                projection.flush(conn)
        batch.clear()

    for notification in iter_log(recorder):
        if until_position is not None and notification.id > until_position:
            break
        try:
            body = verifier.check(notification).body  # parsed once, verified, reused below
        except EventCheckFailed as failed:
            if until_time is not None and _recorded_at(notification) > until_time:
                break  # past the bound: not part of the replay, so not its failure
            raise ReplayError(
                f"notification {notification.id} ({notification.originator_id} "
                f"v{notification.originator_version}): {failed.reason.value}: {failed.detail}"
            ) from None
        if until_time is not None and body["recorded_at"] > until_time:
            break
        count, last, last_time = count + 1, notification.id, body["recorded_at"]
        if notification.topic in topics:
            batch.append((notification, body))
            if len(batch) >= BATCH:
                flush()
        if progress is not None and count % 5000 == 0:
            progress(notification.id)
    flush()
    with engine.begin() as conn:
        for projection in projections:
            conn.execute(tracking.insert().values(projection=projection.name, position=last))
    digest = tables_digest(engine, REGISTRY_TABLES + RECEIPT_TABLES)
    engine.dispose()
    return ReplayResult(count, last, last_time, digest, time.perf_counter() - started, path)
