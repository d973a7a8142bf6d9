"""Background work as the log grows: a rare-topic catch-up and the expiry sweep.

Usage: python -m benchmarks.background [--backend sqlite|postgres|both] [--events 50000]
       [--receipts 100000]

1. Registry catch-up with no new source events: the median time of
   ``ReadSide.registry.catch_up()`` right after one source is registered (the baseline), then
   after ``--events`` events of other kinds are written (signed notes, 500 per save). A runner
   that moves its position only to the last event of its own topics rescans every later event
   on every call; the ratio to the baseline shows whether the cost grows with the log.
2. Expiry sweep: the median time of ``ExpiryProcess.sweep()`` over an empty receipts table
   (the baseline), then over ``--receipts`` receipts that expired earlier (rows written
   straight into the read model).
"""

from __future__ import annotations

import argparse
import statistics
import time
import uuid
from collections.abc import Callable

from sqlalchemy import insert

from api.services import open_ledger
from benchmarks._setup import SignedNote, backend_settings
from ledger.receipts.expiry_desk import ExpiryDesk
from ledger.registry.source_desk import SourceDraft
from processes.expiry import ExpiryProcess
from projections.schema import receipts
from projections.service import ReadSide

SAMPLES = 9


def _median_ms(call: Callable[[], object]) -> float:
    times = []
    for _ in range(SAMPLES):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def _notes(count: int) -> list[SignedNote]:
    return [
        SignedNote._create(
            SignedNote.Written,
            id=SignedNote.create_id(),
            text=f"note {n}",
            tags=[],
            actor="key:bench",
        )
        for n in range(count)
    ]


def _expired_rows(count: int) -> list[dict[str, object]]:
    return [
        {
            "receipt_id": f"rcpt_{n:032x}",
            "aggregate_id": str(uuid.uuid4()),
            "policy_version": "default",
            "route": "long_context",
            "as_of": "2026-01-01T00:00:00.000000Z",
            "expires_at": "2026-02-01T00:00:00.000000Z",
            "opened_at": "2026-01-01T00:00:00.000000Z",
            "position": n,
            "expired_at": "2026-02-01T00:00:01.000000Z",
            "expiry_reason": "expires_at_passed",
        }
        for n in range(count)
    ]


def bench(backend: str, events: int, expired: int) -> None:
    """Both measurements on one backend."""
    with backend_settings(backend) as settings:
        runtime = open_ledger(settings)
        read_side = ReadSide(runtime.ledger, runtime.database)
        try:
            draft = SourceDraft("Revenue rose 2.2% in 2023. Costs fell.", "text/plain", "S")
            runtime.sources.register("src", draft, "derived", "key:bench")
            read_side.catch_up()
            baseline = _median_ms(read_side.registry.catch_up)
            for _ in range(events // 500):
                runtime.ledger.save(*_notes(500))
            read_side.registry.catch_up()  # the first call reads the new events once
            grown = _median_ms(read_side.registry.catch_up)
            print(
                f"[{backend}] registry catch-up, nothing new: {baseline:.2f} ms; after {events:,} "
                f"events of other kinds: {grown:.2f} ms ({grown / baseline:.1f}x)"
            )

            process = ExpiryProcess(read_side, ExpiryDesk(read_side.ledger))
            empty = _median_ms(process.sweep)
            rows = _expired_rows(expired)
            with read_side.db.sync.begin() as conn:
                for offset in range(0, len(rows), 5000):
                    conn.execute(insert(receipts), rows[offset : offset + 5000])
                if backend == "postgres":
                    conn.exec_driver_sql("ANALYZE")
            full = _median_ms(process.sweep)
            print(
                f"[{backend}] expiry sweep, no receipts: {empty:.2f} ms; with {expired:,} already "
                f"expired: {full:.2f} ms ({full / empty:.1f}x)"
            )
        finally:
            read_side.close()
            runtime.close()


def main() -> None:
    """Parse arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--events", type=int, default=50_000)
    parser.add_argument("--receipts", type=int, default=100_000)
    args = parser.parse_args()
    for backend in ["sqlite", "postgres"] if args.backend == "both" else [args.backend]:
        bench(backend, args.events, args.receipts)


if __name__ == "__main__":
    main()
