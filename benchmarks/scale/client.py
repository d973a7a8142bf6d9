"""One client of the scale workload: a user's paths over HTTP, each request timed.

A :class:`Client` goes round every path once per :meth:`Client.round` (``/healthz``, a
retrieval, a receipt opened from it, commits of one and of twenty claims, a claim and its
bundle, the checkpoint and an inclusion proof, an as-of source read, the last page of every
list from the cursor :func:`last_cursors` found before the run, the console's receipt page),
timing each request under its path's name in :class:`Timings`.
"""

from __future__ import annotations

import random
import re
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import httpx

from benchmarks.scale.served import Served

PRINCIPAL = {"roles": ["analyst"], "groups": ["g"], "purpose": "bench", "destination": "internal"}
QUOTES: list[str] = []
"""Quotes of spans the clients retrieved (quote search is timed in a phase of its own)."""


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
