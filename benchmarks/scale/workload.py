"""The mixed workload of one scale ledger: what users do, timed path by path over HTTP.

Two API processes (``provledger serve``, each on its own port, so that each can be asked
whether it sees a new span) and one ``provledger worker`` serve the ledger. While an ingester
posts a new source every :data:`INGEST_EVERY` seconds, client threads go round the user
paths, each request timed under its path's name; a watcher asks every API process, after
each ingest, for the marker sentence of the new source until it is retrieved (the time from
the ingest's answer to then). A quiet phase then times retrieval alone, without ingestion.
Every request goes to 127.0.0.1 and every loop is bounded by time.

The processes are started by :mod:`benchmarks.scale.served`; what one client thread does is
:mod:`benchmarks.scale.client`.
"""

from __future__ import annotations

import queue
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import httpx

from benchmarks.scale.client import PRINCIPAL, QUOTES, Client, Timings, last_cursors
from benchmarks.scale.corpus import Corpus
from benchmarks.scale.served import Served

INGEST_EVERY = 0.8
"""Seconds between two ingests (the issue asks for at least one source a second)."""
FIRST_INGEST = 50_000_000
"""Corpus index of the first document a measuring run ingests (far past any build)."""
QUOTE_SECONDS = 10.0
"""Quote search runs alone at the end: over a million spans one search scans the spans table
for tens of seconds and holds its API process's event loop, which would stall every other
path of the mixed phase."""
FRESH_WITHIN = 10.0
"""How long the watcher waits for a span in one process before it counts it missing."""


def run(
    served: Served,
    corpus: Corpus,
    queries: list[str],
    seconds: float,
    quiet_seconds: float,
    clients: int = 2,
) -> tuple[Timings, Timings, int]:
    """The mixed workload with ingestion for ``seconds``, then retrieval alone for
    ``quiet_seconds``; returns both timings and how many sources were ingested."""
    cursors = last_cursors(served)
    QUOTES.clear()
    busy = Timings()
    stop = threading.Event()
    fresh: queue.Queue[tuple[str, float] | None] = queue.Queue()
    ingested = [0]
    workers = [
        threading.Thread(target=_ingest, args=(served, corpus, busy, stop, fresh, ingested)),
        threading.Thread(target=_watch, args=(served, busy, fresh)),
    ]
    workers += [
        threading.Thread(target=_loop, args=(served, busy, queries, stop, n, Client.round, cursors))
        for n in range(clients)
    ]
    for thread in workers:
        thread.start()
    time.sleep(seconds)
    stop.set()
    fresh.put(None)
    for thread in workers:
        thread.join()
    quiet = Timings()
    _phase(served, quiet, queries, quiet_seconds, clients, _retrieve_round)
    _phase(served, busy, queries, QUOTE_SECONDS, 1, _quote_round)
    return busy, quiet, ingested[0]


def _phase(
    served: Served,
    timings: Timings,
    queries: list[str],
    seconds: float,
    clients: int,
    step: Callable[[Client], None],
) -> None:
    stop = threading.Event()
    threads = [
        threading.Thread(target=_loop, args=(served, timings, queries, stop, n, step))
        for n in range(clients)
    ]
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join()


def _quote_round(client: Client) -> None:
    quote = client.random.choice(QUOTES) if QUOTES else "revenue rose"
    client.call("quote search", "POST", "/v1/spans/search?limit=10", json={"quote": quote})


def _retrieve_round(client: Client) -> None:
    client.call("healthz", "GET", "/healthz")
    client.retrieve()


def _loop(
    served: Served,
    timings: Timings,
    queries: list[str],
    stop: threading.Event,
    seed: int,
    step: Callable[[Client], None],
    cursors: dict[str, str | None] | None = None,
) -> None:
    client = Client(served, timings, queries, seed, cursors)
    try:
        while not stop.is_set():
            step(client)
    finally:
        client.close()


def _ingest(
    served: Served,
    corpus: Corpus,
    timings: Timings,
    stop: threading.Event,
    fresh: queue.Queue[tuple[str, float] | None],
    ingested: list[int],
) -> None:
    client = Client(served, timings, [], 0)
    n = 0
    try:
        while not stop.is_set():
            started = time.monotonic()
            marker = f"zq{uuid.uuid4().hex[:10]}"
            document = corpus.generated(FIRST_INGEST + int(time.time() * 1000) % 10**9 + n)
            body = {
                "source_id": f"live-{marker}",
                "title": document.title,
                "authority": "derived",
                "media_type": "text/markdown",
                "text": f"{document.text}\n\nScale marker {marker} was filed today.",
                **({"tables": document.tables} if document.tables else {}),
            }
            response = client.call(
                "ingest one source", "POST", "/v1/sources?include_spans=false", json=body
            )
            if response is not None:
                ingested[0] += 1
                if not WATCHING.is_set():
                    WATCHING.set()
                    fresh.put((marker, time.perf_counter()))
            n += 1
            stop.wait(max(0.0, INGEST_EVERY - (time.monotonic() - started)))
    finally:
        client.close()


def _watch(served: Served, timings: Timings, fresh: queue.Queue[tuple[str, float] | None]) -> None:
    """For the ingests handed over (the ingester hands over one while none is being
    watched), ask every API process, one retrieval at a time, until the marker sentence is
    retrieved; the time recorded runs from the ingest's answer to the answer of the first
    retrieval that returned it. One watched ingest at a time keeps the watcher's own load to
    one retrieval per process."""
    headers = {"Authorization": f"Bearer {served.secret}"}
    https = [
        httpx.Client(base_url=f"http://127.0.0.1:{p}", headers=headers, timeout=120)
        for p in served.ports
    ]
    try:
        while (item := fresh.get()) is not None:
            marker, at = item
            body = {"query": f"scale marker {marker}", "k": 3, "principal": PRINCIPAL}
            threads = [
                threading.Thread(target=_until_found, args=(http, n, body, marker, at, timings))
                for n, http in enumerate(https)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            WATCHING.clear()
    finally:
        for http in https:
            http.close()


WATCHING = threading.Event()
"""Set while an ingest is being watched."""


def _until_found(
    http: httpx.Client, n: int, body: dict[str, Any], marker: str, at: float, timings: Timings
) -> None:
    while True:
        response = http.post("/v1/retrieve", json=body)
        found = any(marker in r["text"] for r in response.json().get("results", []))
        waited = time.perf_counter() - at
        if found or waited > FRESH_WITHIN:
            with timings.lock:
                timings.fresh[n].append(waited if found else 1e9)
            return
        time.sleep(0.05)
