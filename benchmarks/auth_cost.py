"""What authentication costs: an authenticated trivial read against ``/healthz``, in one run.

Usage: python -m benchmarks.auth_cost [--backend sqlite|postgres|both] [--requests 1000]

On a fresh ledger with one API key (issued, revoked, reissued: 3 events), it times, per request,
in wall-clock time and in CPU time of this process (steadier on a shared machine; it leaves
out PostgreSQL's own work) through the ASGI stack (httpx's ASGI transport on the app's event
loop, no network, no thread hop per request):
1. ``GET /healthz`` (no authentication: the baseline);
2. a trivial authenticated read with the key cache off (every request rebuilds the key from its
   verified events: what authentication cost before the cache);
3. the same read with the key cache on and the key's rows read through the
   event store's recorder in a worker thread (what the cache cost before
   ``projections/key_rows.py``;
   on SQLite, before its reader read the rows on the event loop too);
4. on PostgreSQL, the same read with the rows read on the event loop through an asyncpg pool
   (``pool.fetch``: acquire, query, reset on release; what it cost before the reader kept its
   own connections);
5. the same read with the key cache on and one indexed read of the key's rows per request, on
   the event loop (asyncpg on PostgreSQL, a read-only connection on SQLite): what it cost
   before the key watch's lease;
6. the same read with the key cache on as the service runs it: a key the key watch vouched for
   within its lease is admitted without reading its rows (``ledger/keys/cache.py``).

The trivial read is a route added for the benchmark that returns the caller's name, so all it
measures beyond ``/healthz`` is authentication.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Annotated, Any
from uuid import UUID

import asyncpg
import httpx
from eventsourcing.persistence import StoredEvent
from fastapi import Depends
from fastapi.testclient import TestClient

from api.deps import require
from api.main import create_app
from api.observability import configure_logging
from benchmarks._setup import backend_settings, open_signed
from ledger.eventlog.database import DatabaseConfig
from ledger.keys.api_keys import Caller, Scope
from ledger.keys.cache import poll_seconds
from projections.key_rows import AsyncKeyRows, stored_rows

ROUNDS = 10


class PooledKeyRows:
    """The key-row read through an asyncpg pool, as ``projections/key_rows.py`` made it before it
    kept its own connections (the pool resets a connection on release: a second round trip)."""

    def __init__(self, pool: Any, statement: str) -> None:
        self.pool = pool
        self.statement = statement

    @classmethod
    async def open(cls, reader: AsyncKeyRows, database: DatabaseConfig) -> PooledKeyRows:
        """A pool of at most 4 connections on the ledger's database, making ``reader``'s query."""
        pool = await asyncpg.create_pool(
            host=database.host,
            port=database.port,
            user=database.user,
            password=database.password or None,
            database=database.dbname,
            min_size=1,
            max_size=4,
        )
        return cls(pool, reader.statement)

    async def rows(self, key_id: UUID) -> Sequence[StoredEvent]:
        """The key's stored rows, in version order."""
        return stored_rows(key_id, await self.pool.fetch(self.statement, key_id))


async def _async_round(
    client: httpx.AsyncClient, path: str, headers: dict[str, str], count: int
) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(count):
        await client.get(path, headers=headers)
        await asyncio.sleep(0)  # the loop's other tasks run between requests, as in a server
    return (time.perf_counter() - wall) / count, (time.process_time() - cpu) / count


def _round(
    client: TestClient, path: str, headers: dict[str, str], count: int
) -> tuple[float, float]:
    """Wall and CPU seconds (this process, every thread) per ``GET path`` over ``count``, sent
    on the app's own event loop through httpx's ASGI transport: no thread hop per request, so
    the harness adds little to what is measured (the test client's hop per request costs
    about 2.5 ms, more than ``/healthz`` itself)."""

    async def run() -> tuple[float, float]:
        transport = httpx.ASGITransport(app=client.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as direct:
            return await _async_round(direct, path, headers, count)

    assert client.portal is not None
    return client.portal.call(run)


def _interleaved(
    client: TestClient, cases: dict[str, tuple[str, dict[str, str], Callable[[], None]]], count: int
) -> dict[str, tuple[float, float]]:
    """Median wall and CPU seconds per request of each case, over ``ROUNDS`` interleaved rounds
    (a shared machine's noise falls on every case alike)."""
    for path, headers, prepare in cases.values():
        prepare()
        for _ in range(20):
            assert client.get(path, headers=headers).status_code == 200
        _round(client, path, headers, 20)
    rounds: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
    for _ in range(ROUNDS):
        for name, (path, headers, prepare) in cases.items():
            prepare()
            rounds[name].append(_round(client, path, headers, max(1, count // ROUNDS)))
    return {
        name: (statistics.median(w for w, _ in times), statistics.median(c for _, c in times))
        for name, times in rounds.items()
    }


def bench(backend: str, requests: int) -> None:
    """Time the three requests ``requests`` times each on ``backend`` and print the ratios."""
    with backend_settings(backend) as base:
        settings = base.model_copy(update={"background": False})
        runtime = open_signed(settings)
        try:
            desk = runtime.api_keys
            desk.issue("bench", ["read"], "bench")
            desk.revoke("bench", "rotate", "bench")
            secret = desk.issue("bench", ["read"], "bench")
            app = create_app(settings, runtime)

            @app.get("/bench/whoami")
            async def whoami(
                principal: Annotated[Caller, Depends(require(Scope.READ))],
            ) -> dict[str, str]:  # async: no thread hop beyond authentication's
                return {"name": principal.name}

            # Matched right after /healthz, not after every other route: what the comparison
            # measures is authentication, not where the benchmark added its route.
            routes = app.router.routes
            at = next(i for i, r in enumerate(routes) if getattr(r, "path", "") == "/healthz")
            routes.insert(at + 1, routes.pop())

            headers = {"Authorization": f"Bearer {secret}"}
            cache = desk.cache
            assert cache is not None

            with TestClient(app) as client:
                reader = client.app.state.key_rows  # type: ignore[attr-defined]
                pooled = None
                if isinstance(reader, AsyncKeyRows):
                    pooled = client.portal.call(PooledKeyRows.open, reader, runtime.database)  # type: ignore[union-attr]

                lease = cache.lease

                def cache_on() -> None:
                    desk.cache = cache
                    client.app.state.key_rows = reader  # type: ignore[attr-defined]
                    if cache.lease != lease:
                        cache.lease = lease
                        time.sleep(poll_seconds(lease) * 2)  # the key watch renews the lease

                def cache_read_always() -> None:
                    desk.cache = cache
                    client.app.state.key_rows = reader  # type: ignore[attr-defined]
                    cache.lease = 0.0  # the key watch no longer renews it
                    cache.lapse()

                def cache_off() -> None:
                    desk.cache = None

                def cache_in_thread() -> None:
                    cache_read_always()
                    client.app.state.key_rows = None  # type: ignore[attr-defined]

                def cache_on_pooled() -> None:
                    cache_read_always()
                    client.app.state.key_rows = pooled  # type: ignore[attr-defined]

                cases = {
                    "health": ("/healthz", {}, cache_on),
                    "uncached": ("/bench/whoami", headers, cache_off),
                    "threaded": ("/bench/whoami", headers, cache_in_thread),
                    "pooled": ("/bench/whoami", headers, cache_on_pooled),
                    "read": ("/bench/whoami", headers, cache_read_always),
                    "cached": ("/bench/whoami", headers, cache_on),
                }
                if pooled is None:  # SQLite: no asyncpg pool to compare with
                    del cases["pooled"]
                try:
                    times = _interleaved(client, cases, requests)
                finally:
                    cache_on()
                    if pooled is not None:
                        client.portal.call(pooled.pool.close)  # type: ignore[union-attr]
        finally:
            runtime.close()
    print(
        f"[{backend}] {requests} requests each, per request (median of {ROUNDS} interleaved"
        " rounds): wall time, and CPU time of this process"
    )
    print(
        f"  key cache: {cache.hits} hits ({cache.trusted_hits} trusted within the lease),"
        f" {cache.misses} misses"
    )
    health = times["health"]
    for label, name in (
        ("GET /healthz", "health"),
        ("authenticated read, key cache off", "uncached"),
        ("key cache on, rows read in a thread", "threaded"),
        ("key cache on, rows through a pool", "pooled"),
        ("key cache on, rows read per request", "read"),
        ("authenticated read, key cache on", "cached"),
    ):
        if name not in times:
            continue
        wall, cpu = times[name]
        print(
            f"  {label:<38}{wall * 1e3:7.3f} ms {wall / health[0]:5.2f}x"
            f"   cpu {cpu * 1e3:7.3f} ms {cpu / health[1]:5.2f}x"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--requests", type=int, default=1000)
    args = parser.parse_args()
    configure_logging("WARNING")
    for backend in ("sqlite", "postgres") if args.backend == "both" else (args.backend,):
        bench(backend, args.requests)


if __name__ == "__main__":
    main()
