"""What a quote search costs: ``POST /v1/spans/search`` against reading one span, in one run.

Usage: python -m benchmarks.span_search [--backend sqlite|postgres|both] [--sources 300]
[--requests 50]

On a fresh ledger with ``--sources`` sources of 20 sentences each (every span in force now), it
times, per request, through the ASGI stack (``TestClient``, no network), in median wall time of
interleaved rounds:
1. ``GET /v1/sources/{id}/versions/1/spans?start=0&end=10`` (one indexed span read, checked
   against its verified version: the baseline);
2. a search for a quote one span holds, the database narrowing candidates by the quote's
   longest ASCII word (as served);
3. the same search with that narrowing off (every span in force is read and tested in the
   service: what a search costs without it).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from fastapi.testclient import TestClient

from api.main import create_app
from api.observability import configure_logging
from benchmarks._setup import backend_settings, open_signed
from ledger.registry.source_desk import SourceDraft
from projections import span_queries

ROUNDS = 5
WORDS = ["revenue", "margin", "costs", "staff", "prices", "debt", "sales", "income"]


def _text(index: int) -> str:
    sentences = [
        f"The {WORDS[(index + n) % len(WORDS)]} of unit {index}-{n} moved by {n}.%"
        for n in range(20)
    ]
    return " ".join(s.replace(".%", f" percent in {2000 + n}.") for n, s in enumerate(sentences))


def bench(backend: str, sources: int, requests: int) -> None:
    """Time the three requests on ``backend`` and print the ratios to the baseline."""
    with backend_settings(backend) as base:
        settings = base.model_copy(update={"background": False})
        runtime = open_signed(settings)
        try:
            for index in range(sources):
                draft = SourceDraft(_text(index), "text/plain", f"S{index}")
                runtime.sources.register(f"s{index:05d}", draft, "derived", "bench")
            secret = runtime.api_keys.issue("bench", ["read"], "bench")
            headers = {"Authorization": f"Bearer {secret}"}
            quote = {"quote": f"unit {sources // 2}-7 moved by 7"}
            narrowing = span_queries._prefilter
            with TestClient(create_app(settings, runtime)) as client:
                client.app.state.services.read_side.catch_up()  # type: ignore[attr-defined]

                def read() -> None:
                    path = "/v1/sources/s00000/versions/1/spans"
                    response = client.get(path, params={"start": 0, "end": 10}, headers=headers)
                    assert response.status_code == 200

                def search() -> None:
                    response = client.post("/v1/spans/search", json=quote, headers=headers)
                    assert len(response.json()["items"]) == 1, response.text

                def full_scan() -> None:
                    span_queries._prefilter = lambda quote, dialect: None
                    try:
                        search()
                    finally:
                        span_queries._prefilter = narrowing

                cases: dict[str, Callable[[], None]] = {
                    "read": read,
                    "search": search,
                    "scan": full_scan,
                }
                for case in cases.values():
                    case()
                rounds: dict[str, list[float]] = {name: [] for name in cases}
                for _ in range(ROUNDS):
                    for name, case in cases.items():
                        start = time.perf_counter()
                        for _ in range(max(1, requests // ROUNDS)):
                            case()
                        rounds[name].append(
                            (time.perf_counter() - start) / max(1, requests // ROUNDS)
                        )
        finally:
            runtime.close()
    times = {name: statistics.median(values) for name, values in rounds.items()}
    print(
        f"[{backend}] {sources} sources, {sources * 20} spans; {requests} requests each, "
        f"median of {ROUNDS} interleaved rounds, wall time per request"
    )
    for label, name in (
        ("range read of one version (baseline)", "read"),
        ("quote search (as served)", "search"),
        ("quote search, no narrowing (full scan)", "scan"),
    ):
        print(f"  {label:<42}{times[name] * 1e3:8.2f} ms {times[name] / times['read']:7.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--sources", type=int, default=300)
    parser.add_argument("--requests", type=int, default=50)
    args = parser.parse_args()
    configure_logging("WARNING")
    for backend in ("sqlite", "postgres") if args.backend == "both" else (args.backend,):
        bench(backend, args.sources, args.requests)


if __name__ == "__main__":
    main()
