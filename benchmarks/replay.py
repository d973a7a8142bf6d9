"""Regulator reads at scale: as-of reads and replay throughput over a large ledger.

Usage: python -m benchmarks.replay [--events 1000000]

Fills an SQLite ledger with ``--events`` events (one-sentence sources registered in bulk, two
events each, then a new version for one source in ten), projects the registry, then:
1. as-of reads: ``GET /v1/sources/{id}?known_at=...`` (the query behind it) for random sources
   at random times: p50 and p99;
2. replay: verifies every event and rebuilds the read models into a fresh SQLite file:
   events/s.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from benchmarks._setup import backend_settings, open_signed
from ledger.errors import NotFound
from ledger.eventlog.clock import format_time
from ledger.registry.source_desk import BatchItem, SourceDraft
from projections.registry_queries import AsOf, get_source
from projections.replay import replay
from projections.service import ReadSide


def main() -> None:
    """Build the ledger, then time as-of reads and a full replay."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=1_000_000)
    args = parser.parse_args()
    docs = args.events * 10 // 22  # 2 events per source, plus a version for one in ten
    with backend_settings("sqlite") as settings:
        runtime = open_signed(settings)
        read_side = ReadSide(runtime.ledger, runtime.database)
        started = time.perf_counter()
        times: list[str] = []
        for offset in range(0, docs, 1000):
            items = [
                BatchItem(f"s{i}", SourceDraft(f"Fact number {i} was recorded.", "text/plain", "S"))
                for i in range(offset, min(offset + 1000, docs))
            ]
            runtime.sources.ingest_batch(items, "key:bench")
            changed = [
                BatchItem(
                    item.source_id, SourceDraft(item.draft.text + " Revised.", "text/plain", "S")
                )
                for item in items[::10]
            ]
            runtime.sources.ingest_batch(changed, "key:bench")
            times.append(format_time(datetime.now(UTC)))
        events = runtime.ledger.last_position()
        print(f"ledger: {events:,} events written in {time.perf_counter() - started:.0f}s")
        started = time.perf_counter()
        read_side.catch_up()
        print(f"read models projected in {time.perf_counter() - started:.0f}s")
        latencies = asyncio.run(_as_of(read_side, docs, times))
        print(
            f"as-of read (source as known at a random time, {events:,} events): "
            f"p50 {statistics.median(latencies) * 1000:.2f} ms, "
            f"p99 {sorted(latencies)[int(len(latencies) * 0.99)] * 1000:.2f} ms"
        )
        with tempfile.TemporaryDirectory() as out:
            result = replay(
                runtime.ledger.recorder,
                runtime.ledger.signed_mapper,
                runtime.keyring,
                Path(out) / "r",
            )
        print(
            f"replay: {result.events:,} events verified and projected in {result.seconds:.1f}s, "
            f"{result.events / result.seconds:,.0f} events/s"
        )
        read_side.close()
        runtime.close()


async def _as_of(read_side: ReadSide, docs: int, times: list[str]) -> list[float]:
    rng = random.Random(5)
    latencies = []
    async with read_side.async_engine.connect() as conn:
        for _ in range(500):
            source = f"s{rng.randrange(docs)}"
            known_at = rng.choice(times)
            started = time.perf_counter()
            with contextlib.suppress(NotFound):  # registered after that time: a 404 answers too
                await get_source(conn, source, AsOf(known_at=known_at))
            latencies.append(time.perf_counter() - started)
    await read_side.async_engine.dispose()
    return latencies


if __name__ == "__main__":
    main()
