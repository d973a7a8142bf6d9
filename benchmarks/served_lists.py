"""What checking the receipt and claim lists against verified events costs a page.

Usage: python -m benchmarks.served_lists [--backend sqlite|postgres|both] [--rounds 100]
       [--receipts 120] [--claims 3]

In one process (FastAPI's test client, no network), opens ``--receipts`` receipts over one
source, commits ``--claims`` claims to each (each quoting a span verbatim), then times three
pages, request by request, alternating four ways of serving them:

- unchecked: the rows served as the read model holds them (the baseline: what the lists did
  before they were checked);
- checked: as wired, the page's receipts remembered from an earlier page at their versions
  (one query for their newest versions);
- facts forgotten: the remembered facts dropped before each request, so the page's receipts
  are read in one query and folded again (their events' signatures remembered as verified);
- nothing remembered: the verified events forgotten too, so every signature of the page's
  receipts is checked again (a process's first page).

Pages: ``GET /v1/receipts?limit=100``, ``GET /v1/claims?limit=100`` and the console's receipts
page (50 receipts with their counts). It prints the p50 of each, and each as a ratio to the
unchecked p50 measured in the same run.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from api.main import create_app
from api.observability import configure_logging
from api.services import open_ledger
from benchmarks._setup import backend_settings
from ledger.receipts.served_rows import ServedReceipts

SENTENCES = [f"Segment {i} revenue rose {i}.{i % 10}% to ${i + 1}.5 million." for i in range(20)]
WAYS = ("unchecked", "checked", "facts forgotten", "nothing remembered")


class Unchecked(ServedReceipts):
    """Serves every row as the read model holds it: the baseline."""

    def _check_rows(self, *args: Any, **kwargs: Any) -> None:
        return None


def _seed(client: TestClient, headers: dict[str, str], receipts: int, claims: int) -> None:
    spans = client.post(
        "/v1/sources",
        headers=headers,
        json={
            "source_id": "report",
            "title": "R",
            "authority": "derived",
            "text": " ".join(SENTENCES),
        },
    ).json()["spans"]
    for n in range(receipts):
        chosen = [spans[(n + k) % len(spans)] for k in range(claims)]
        receipt_id = client.post(
            "/v1/receipts",
            headers=headers,
            json={
                "request": f"What did segment {n} do?",
                "actor": f"user-{n % 7}",
                "purpose": "qa",
                "policy_version": "default",
                "route": "long_context",
                "model": {"name": "m", "version": "1"},
                "evidence": [s["span_id"] for s in chosen],
            },
        ).json()["receipt_id"]
        body = {
            "claims": [{"text": s["text"], "bindings": [{"span_id": s["span_id"]}]} for s in chosen]
        }
        committed = client.post(f"/v1/receipts/{receipt_id}/claims", headers=headers, json=body)
        assert committed.status_code == 201, committed.text


def bench(backend: str, rounds: int, receipts: int, claims: int) -> None:
    """Seed one ledger, then time the three pages the four ways."""
    with backend_settings(backend) as fresh:
        settings = fresh.model_copy(update={"log_level": "WARNING", "log_json": True})
        runtime = open_ledger(settings)
        try:
            with TestClient(create_app(settings, runtime)) as client:
                secret = runtime.api_keys.issue("bench", ["admin"], "bench")
                headers = {"Authorization": f"Bearer {secret}"}
                _seed(client, headers, receipts, claims)
                _time(client, headers, secret, backend, rounds, runtime)
        finally:
            runtime.close()


def _time(
    client: TestClient,
    headers: dict[str, str],
    secret: str,
    backend: str,
    rounds: int,
    runtime: Any,
) -> None:
    read_side = client.app.state.services.read_side  # type: ignore[attr-defined]
    checked: ServedReceipts = read_side.served_receipts
    unchecked = Unchecked(checked.heads, checked.histories, checked.horizon)
    _console(client, secret)
    pages: dict[str, Callable[[], Any]] = {
        "GET /v1/receipts?limit=100": lambda: client.get("/v1/receipts?limit=100", headers=headers),
        "GET /v1/claims?limit=100": lambda: client.get("/v1/claims?limit=100", headers=headers),
        "console receipts (50)": lambda: client.get(
            "/console/receipts", headers={"Accept": "text/html"}
        ),
    }
    for name, call in pages.items():
        assert call().status_code == 200, name
        timings: dict[str, list[float]] = {way: [] for way in WAYS}
        for n in range(rounds * len(WAYS)):
            way = WAYS[n % len(WAYS)]
            read_side.served_receipts = unchecked if way == "unchecked" else checked
            if way in ("facts forgotten", "nothing remembered"):
                checked._facts.clear()
            if way == "nothing remembered":
                runtime.ledger.checks.forget()
            started = time.perf_counter()
            response = call()
            timings[way].append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, response.text[:300]
        read_side.served_receipts = checked
        base = statistics.median(timings["unchecked"])
        medians = {way: statistics.median(timings[way]) for way in WAYS[1:]}
        shown = ", ".join(f"{w} {m:.2f} ms ({m / base:.2f}x)" for w, m in medians.items())
        print(f"[{backend}] {name}: p50 unchecked {base:.2f} ms; {shown}")


def _console(client: TestClient, secret: str) -> None:
    """Sign in to the console through its form."""
    form = client.get("/console/", headers={"Accept": "text/html"})
    token = re.search(r'name="csrf" value="([^"]+)"', form.text)
    assert token is not None
    client.post(
        "/console/session", data={"csrf": token.group(1), "api_key": secret}, follow_redirects=False
    )


def main() -> None:
    """Parse arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--receipts", type=int, default=120)
    parser.add_argument("--claims", type=int, default=3)
    args = parser.parse_args()
    configure_logging("WARNING")
    for backend in ("sqlite", "postgres") if args.backend == "both" else (args.backend,):
        bench(backend, args.rounds, args.receipts, args.claims)


if __name__ == "__main__":
    main()
