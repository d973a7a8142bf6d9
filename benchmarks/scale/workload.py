"""The mixed workload of one scale ledger: what users do, timed path by path over HTTP.

Two API processes (``provledger serve``, each on its own port, so that each can be asked
whether it sees a new span) and one ``provledger worker`` serve the ledger. While an ingester
posts a new source every :data:`INGEST_EVERY` seconds, client threads go round the user
paths, each request timed under its path's name; a watcher asks every API process, after
each ingest, for the marker sentence of the new source until it is retrieved (the time from
the ingest's answer to then). A quiet phase then times retrieval alone, without ingestion.
Every request goes to 127.0.0.1 and every loop is bounded by time.
"""

from __future__ import annotations

import os
import queue
import random
import re
import subprocess
import sys
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from benchmarks._fleet import free_port, rss_mib, rss_parts_mib
from benchmarks.scale.corpus import Corpus
from benchmarks.scale.ledgers import ScaleLedger

CLI = str(Path(sys.executable).parent / "provledger")
INGEST_EVERY = 0.8
"""Seconds between two ingests (the issue asks for at least one source a second)."""
PRINCIPAL = {"roles": ["analyst"], "groups": ["g"], "purpose": "bench", "destination": "internal"}
FIRST_INGEST = 50_000_000
"""Corpus index of the first document a measuring run ingests (far past any build)."""
QUOTE_SECONDS = 10.0
"""Quote search runs alone at the end: over a million spans one search scans the spans table
for tens of seconds and holds its API process's event loop, which would stall every other
path of the mixed phase."""
FRESH_WITHIN = 10.0
"""How long the watcher waits for a span in one process before it counts it missing."""


@dataclass
class Timings:
    """Seconds per path, the freshness of each ingest per process, and failures."""

    paths: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    fresh: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    failures: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, path: str, seconds: float) -> None:
        with self.lock:
            self.paths[path].append(seconds)

    def fail(self, path: str, response: httpx.Response) -> None:
        with self.lock:
            if len(self.failures) < 20:
                self.failures.append(f"{path}: {response.status_code} {response.text[:200]}")


@dataclass
class Served:
    """The running processes of one ledger."""

    ports: list[int]
    secret: str
    env: dict[str, str]
    api: list[subprocess.Popen[bytes]]
    worker: subprocess.Popen[bytes]

    def rss(self) -> dict[str, dict[str, float]]:
        """Resident memory of each process, MiB: total, anonymous and file-backed."""
        named = {f"api {i + 1}": p.pid for i, p in enumerate(self.api)}
        named["worker"] = self.worker.pid
        out = {}
        for name, pid in named.items():
            total = rss_mib(pid).get(pid, 0.0)
            out[name] = {"rss": total, **rss_parts_mib(pid)}
        return out


@contextmanager
def serve(ledger: ScaleLedger, logs: Path) -> Iterator[Served]:
    """Start two API processes and a worker on ``ledger``; stop them after."""
    env = {**os.environ, **ledger.environment(), "PROVLEDGER_LOG_LEVEL": "WARNING"}
    created = subprocess.run(
        [CLI, "keys", "create", "--name", f"scale-{uuid.uuid4().hex[:6]}", "--scopes", "admin"],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    secret = created.stdout.strip().splitlines()[-1]
    logs.mkdir(parents=True, exist_ok=True)
    ports = [free_port(), free_port()]
    api = []
    for n, port in enumerate(ports):
        with (logs / f"api-{n}.log").open("wb") as out:
            command = [CLI, "serve", "--port", str(port), "--no-background"]
            api.append(subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT))
    with (logs / "worker.log").open("wb") as out:
        worker = subprocess.Popen([CLI, "worker"], env=env, stdout=out, stderr=subprocess.STDOUT)
    served = Served(ports, secret, env, api, worker)
    try:
        for port in ports:
            _wait_ready(port, api)
        yield served
    finally:
        for process in (*api, worker):
            process.terminate()
        for process in (*api, worker):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


def _wait_ready(port: int, api: list[subprocess.Popen[bytes]]) -> None:
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        if any(p.poll() is not None for p in api):
            raise RuntimeError("an API process stopped while starting")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"the API process on port {port} did not become ready")


class Client:
    """One client thread's session: an HTTP client per API process, what it has made."""

    def __init__(
        self,
        served: Served,
        timings: Timings,
        queries: list[str],
        seed: int,
        cursors: dict[str, str | None] | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {served.secret}"}
        self.http = [
            httpx.Client(base_url=f"http://127.0.0.1:{p}", headers=headers, timeout=120)
            for p in served.ports
        ]
        self.served = served
        self.timings = timings
        self.queries = queries
        self.random = random.Random(seed)
        self.turn = seed
        self.cursors = cursors if cursors is not None else {}
        self.quotes: list[str] = []
        self.console: httpx.Client | None = None

    def _pick(self) -> httpx.Client:
        self.turn += 1
        return self.http[self.turn % len(self.http)]

    def call(self, path: str, method: str, url: str, **kwargs: Any) -> httpx.Response | None:
        """Send one request and time it under ``path`` (a failure is kept, not timed)."""
        http = kwargs.pop("http", None) or self._pick()
        started = time.perf_counter()
        response = http.request(method, url, **kwargs)
        took = time.perf_counter() - started
        if response.status_code >= 400:
            self.timings.fail(path, response)
            return None
        self.timings.add(path, took)
        return response

    def retrieve(self, k: int = 20) -> dict[str, Any] | None:
        """``POST /v1/retrieve`` for a query of the pool."""
        body = {"query": self.random.choice(self.queries), "k": k, "principal": PRINCIPAL}
        response = self.call("retrieve k=20", "POST", "/v1/retrieve", json=body)
        return None if response is None else response.json()

    def round(self) -> None:
        """Every path once: retrieve, a receipt from it, commits, reads, proofs, lists."""
        self.call("healthz", "GET", "/healthz")
        found = self.retrieve()
        if not found:
            return
        prose = [r for r in found["results"] if len(r["text"].split()) >= 4] or found["results"]
        if not prose:
            return
        opened = self.call(
            "open receipt from retrieval",
            "POST",
            "/v1/receipts",
            json={
                "request": "scale",
                "actor": "scale-bench",
                "purpose": "bench",
                "policy_version": "default",
                "route": "hybrid_retrieval",
                "model": {"name": "m", "version": "1"},
                "retrieval_id": found["retrieval_id"],
                "principal": PRINCIPAL,
            },
        )
        if opened is None:
            return
        receipt_id = opened.json()["receipt_id"]
        claim_id = self._commit(receipt_id, prose[:1], "commit 1 claim")
        self._commit(receipt_id, [prose[i % len(prose)] for i in range(20)], "commit 20 claims")
        if claim_id:
            self.call("read a claim", "GET", f"/v1/claims/{claim_id}")
            self.call("claim bundle", "GET", f"/v1/claims/{claim_id}/bundle")
        checkpoint = self.call("checkpoint", "GET", "/v1/audit/checkpoint")
        if checkpoint is not None:
            size = int(checkpoint.headers.get("X-Tree-Size", "1"))
            index = self.random.randrange(max(size, 1))
            url = f"/v1/audit/proofs/inclusion?index={index}&size={size}"
            self.call("inclusion proof", "GET", url)
        source = prose[0]["source_id"]
        self.call(
            "as-of source read",
            "GET",
            f"/v1/sources/{source}",
            params={"known_at": _now(), "valid_at": _now()},
        )
        self.quotes.append(" ".join(prose[0]["text"].split()[:6]))
        for name in LISTS:
            self._last_page(name)
        self._console(receipt_id)

    def _commit(self, receipt_id: str, spans: list[dict[str, Any]], path: str) -> str | None:
        claims = [
            {"text": s["text"], "bindings": [{"span_id": s["span_id"], "quote": s["text"]}]}
            for s in spans
        ]
        response = self.call(
            path, "POST", f"/v1/receipts/{receipt_id}/claims", json={"claims": claims}
        )
        if response is None:
            return None
        committed = response.json().get("committed") or [{}]
        return committed[0].get("claim_id")  # type: ignore[no-any-return]

    def _last_page(self, name: str) -> None:
        """The last page of a list, from the cursor of the page before it (found before the
        run)."""
        params = {"limit": "100"}
        cursor = self.cursors[name]
        if cursor is not None:
            params["after"] = cursor
        self.call("last page of a list", "GET", f"/v1/{name}", params=params)

    def _console(self, receipt_id: str) -> None:
        if self.console is None:
            port = self.served.ports[0]
            self.console = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120)
            form = self.console.get("/console/").text
            token = re.search(r'name="csrf" value="([^"]*)"', form)
            data = {"csrf": token.group(1) if token else "", "api_key": self.served.secret}
            self.console.post("/console/session", data=data)
        self.call(
            "console receipt page", "GET", f"/console/receipts/{receipt_id}", http=self.console
        )

    def close(self) -> None:
        QUOTES.extend(self.quotes)
        for http in self.http:
            http.close()
        if self.console is not None:
            self.console.close()


LISTS = ("sources", "receipts", "claims", "events")


def last_cursors(served: Served) -> dict[str, str | None]:
    """For every list, the cursor of the page before its last (walked once, before the
    clients start: the walk is not what is measured)."""
    headers = {"Authorization": f"Bearer {served.secret}"}
    base = f"http://127.0.0.1:{served.ports[0]}"
    with httpx.Client(base_url=base, headers=headers, timeout=600) as http:
        return {name: _last_cursor(http, f"/v1/{name}") for name in LISTS}


def _last_cursor(http: httpx.Client, url: str) -> str | None:
    """The ``next`` cursor of the page before the last (walking with pages of 1,000)."""
    before: str | None = None
    cursor: str | None = None
    while True:
        params = {"limit": "1000"} | ({"after": cursor} if cursor else {})
        page = http.get(url, params=params).json()
        if not page.get("next"):
            return before if cursor is None else cursor
        before, cursor = cursor, page["next"]


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


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


QUOTES: list[str] = []
"""Quotes of spans the clients retrieved (quote search is timed in a phase of its own)."""


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
