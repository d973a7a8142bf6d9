"""The console's receipt page: render time and page weight of a receipt with 50 claims.

Usage: python -m benchmarks.console [--backend sqlite|postgres|both] [--requests 200]

In one process (FastAPI's test client, no network), registers a 60-sentence source, opens a
receipt over its spans, commits 50 claims (each quoting a span verbatim, so each passes the
whole gate), signs in to the console, then times, alternating request by request:

1. ``GET /console/receipts/{id}``: the page, with all 50 claims' citations assembled;
2. as a baseline, ``GET /v1/receipts/{id}``: the same receipt as JSON.

It prints p50 and p99 of each, the ratio of the page to the JSON, and the page weight: the
HTML plus the one stylesheet and the one script it loads (targets: p50 at most 50 ms, weight
under 150 KB). Then, for the page's main query, the p50 of
``projections.claim_queries.binding_views`` over the receipt's 50 cited spans (table cells
included, as the page asks), called directly on the API's async engine.
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from fastapi.testclient import TestClient

from api.main import create_app
from api.services import open_ledger
from api.settings import Settings
from projections.claim_queries import Coordinates, binding_views

PG_URL = "postgresql://postgres@127.0.0.1:5432/test"
CLAIMS = 50
SENTENCES = [
    f"Segment {i} revenue rose {i}.{i % 10}% to ${i + 1}.5 million in fiscal 2023."
    for i in range(60)
]


def _settings(backend: str, data_dir: Path) -> Settings:
    url = None
    if backend == "postgres":
        import psycopg

        schema = f"bench_console_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        url = f"{PG_URL}?schema={schema}"
    return Settings(data_dir=data_dir, database_url=url, log_level="WARNING", log_json=True)


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run(backend: str, requests: int) -> None:
    """Seed, sign in, time the page against the JSON, print the figures."""
    with tempfile.TemporaryDirectory() as tmp:
        settings = _settings(backend, Path(tmp) / "data")
        runtime = open_ledger(settings)
        app = create_app(settings, runtime)
        with TestClient(app) as client:
            admin = {"Authorization": "Bearer " + runtime.api_keys.issue("b", ["admin"], "x")}
            source = client.post(
                "/v1/sources",
                headers=admin,
                json={
                    "source_id": "report",
                    "title": "Segment report",
                    "authority": "derived",
                    "text": " ".join(SENTENCES),
                },
            ).json()
            spans = source["spans"][:CLAIMS]
            receipt_id = client.post(
                "/v1/receipts",
                headers=admin,
                json={
                    "request": "How did each segment do?",
                    "actor": "bench",
                    "purpose": "benchmark",
                    "policy_version": "default",
                    "route": "long_context",
                    "model": {"name": "m", "version": "1"},
                    "evidence": [s["span_id"] for s in source["spans"]],
                },
            ).json()["receipt_id"]
            claims = [{"text": s["text"], "bindings": [{"span_id": s["span_id"]}]} for s in spans]
            committed = client.post(
                f"/v1/receipts/{receipt_id}/claims", headers=admin, json={"claims": claims}
            )
            assert committed.status_code == 201, committed.text
            form = client.get("/console/", headers={"Accept": "text/html"}).text
            token = re.search(r'name="csrf" value="([^"]+)"', form)
            assert token is not None
            secret = admin["Authorization"].removeprefix("Bearer ")
            client.post("/console/session", data={"csrf": token.group(1), "api_key": secret})
            page_path, json_path = f"/console/receipts/{receipt_id}", f"/v1/receipts/{receipt_id}"
            page = client.get(page_path)
            assert page.status_code == 200, page.text
            assert page.text.count('<details class="citation"') == CLAIMS
            css = client.get("/console/static/console.css").content
            js = client.get("/console/static/console.js").content
            for _ in range(10):  # warm both paths
                client.get(page_path)
                client.get(json_path, headers=admin)
            page_ms: list[float] = []
            json_ms: list[float] = []
            for _ in range(requests):
                start = time.perf_counter()
                client.get(page_path)
                page_ms.append((time.perf_counter() - start) * 1000)
                start = time.perf_counter()
                client.get(json_path, headers=admin)
                json_ms.append((time.perf_counter() - start) * 1000)
            document = client.get(json_path, headers=admin).json()
            wanted: list[Coordinates] = [
                (b["span_id"], b["source_id"], b["version"])
                for claim in document["claims"]
                for b in claim["bindings"]
            ]
            engine = app.state.services.read_side.async_engine

            async def views() -> float:
                start = time.perf_counter()
                async with engine.connect() as conn:
                    found = await binding_views(conn, wanted, with_cells=True)
                assert len(found) == CLAIMS
                return (time.perf_counter() - start) * 1000

            portal = client.portal
            assert portal is not None  # inside the client's context
            query_ms = [portal.call(views) for _ in range(requests)]
        runtime.close()
    weight = len(page.content) + len(css) + len(js)
    p50, json_p50 = statistics.median(page_ms), statistics.median(json_ms)
    print(f"backend {backend}: receipt with {CLAIMS} claims, {requests} requests each")
    print(
        f"  console page  p50 {p50:6.2f} ms  p99 {_percentile(page_ms, 0.99):6.2f} ms"
        f"  (target p50 <= 50 ms)"
    )
    print(
        f"  JSON receipt  p50 {json_p50:6.2f} ms  p99 {_percentile(json_ms, 0.99):6.2f} ms"
        "  (baseline, same process)"
    )
    print(f"  page / JSON   {p50 / json_p50:5.2f}x at p50")
    query_p50 = statistics.median(query_ms)
    print(
        f"  binding_views p50 {query_p50:6.2f} ms  ({query_p50 / json_p50:4.2f}x the JSON p50;"
        f" {CLAIMS} spans, one call)"
    )
    print(
        f"  page weight   {weight / 1024:6.1f} KB = HTML {len(page.content) / 1024:.1f} KB"
        f" + CSS {len(css) / 1024:.1f} KB + JS {len(js) / 1024:.1f} KB (target < 150 KB)"
    )


def main() -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="sqlite")
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    for backend in ("sqlite", "postgres") if args.backend == "both" else (args.backend,):
        run(backend, args.requests)


if __name__ == "__main__":
    main()
