"""Whether a pinned key can tell a denied quote from a missing one by time: ``POST
/v1/spans/search`` for a quote only a source its pins deny holds, against a quote no source
holds, in interleaved pairs; and the same for ``GET /v1/memory/{id}`` of a memory item kept
from that source against an id no item has.

Usage: python -m benchmarks.denied_timing [--backend sqlite|postgres|both] [--pairs 300]
[--sources 200]

On a fresh ledger with ``--sources`` open sources and one restricted source (group
``investigations``), a key pinned to group ``support`` searches, per pair and in a random order
(seeded), for a sentence of the restricted source and for the same sentence with its names
changed (held by no source); both answer 200 with no items. Each request is timed through the
ASGI stack (``TestClient``, no network). It prints how often the denied quote was the slower of
its pair, the median of each and of the per-pair difference, and the same for a control: two
quotes held by no source, timed the same way (what chance alone gives). A key that learns
nothing by time is slower on the denied quote in about half of the pairs; the target is at most
60%.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from fastapi.testclient import TestClient

from api.main import create_app
from api.observability import configure_logging
from benchmarks._setup import backend_settings, open_signed
from ledger.access.attributes import Pins, SourceAccess
from ledger.memory import MemoryDraft
from ledger.registry.source_desk import SourceDraft

DENIED = "Project Falcon will acquire Acme Robotics for 41 million in March."
MISSING = "Project Heron will acquire Zenith Optics for 41 million in March."
OTHER_MISSING = "Project Osprey will acquire Vantage Optics for 41 million in March."
WORDS = ["revenue", "margin", "costs", "staff", "prices", "debt", "sales", "income"]
SEED = 32


def _text(index: int) -> str:
    return " ".join(
        f"The {WORDS[(index + n) % len(WORDS)]} of unit {index}-{n} moved by {n} percent."
        for n in range(10)
    )


def _pairs(
    first: Callable[[], None], second: Callable[[], None], pairs: int, rng: random.Random
) -> tuple[list[float], list[float]]:
    """Time ``pairs`` interleaved pairs, each in a random order; the two lists of seconds."""
    times: tuple[list[float], list[float]] = ([], [])
    cases = (first, second)
    for _ in range(pairs):
        order = [0, 1]
        rng.shuffle(order)
        for which in order:
            start = time.perf_counter()
            cases[which]()
            times[which].append(time.perf_counter() - start)
    return times


def _report(label: str, slow: list[float], fast: list[float]) -> None:
    slower = sum(1 for a, b in zip(slow, fast, strict=True) if a > b)
    difference = statistics.median(a - b for a, b in zip(slow, fast, strict=True))
    print(
        f"  {label:<34} slower in {slower:>3} of {len(slow)} pairs "
        f"({100 * slower / len(slow):4.1f}%); medians {statistics.median(slow) * 1e3:6.3f} ms vs "
        f"{statistics.median(fast) * 1e3:6.3f} ms; median difference "
        f"{difference * 1e3:+7.3f} ms"
    )


def bench(backend: str, sources: int, pairs: int) -> None:
    """Time the pairs on ``backend`` and print how often the denied quote was slower."""
    with backend_settings(backend) as base:
        settings = base.model_copy(update={"background": False})
        runtime = open_signed(settings)
        try:
            for index in range(sources):
                draft = SourceDraft(_text(index), "text/plain", f"S{index}")
                runtime.sources.register(f"s{index:05d}", draft, "derived", "bench")
            restricted = SourceAccess(groups=("investigations",))
            draft = SourceDraft(f"{_text(sources)} {DENIED}", "text/plain", "Case file")
            case_file = runtime.sources.register(
                "case-4471", draft, "derived", "bench", access=restricted
            )
            pins = Pins(groups=("support",), purposes=("fraud-review",))
            secret = runtime.api_keys.issue("support-app", ["read"], "bench", pins)
            headers = {"Authorization": f"Bearer {secret}"}
            with TestClient(create_app(settings, runtime)) as client:
                services = client.app.state.services  # type: ignore[attr-defined]
                services.read_side.catch_up()
                _remember(services, case_file.spans[0].span_id)

                def search(quote: str) -> Callable[[], None]:
                    def run() -> None:
                        response = client.post(
                            "/v1/spans/search", json={"quote": quote}, headers=headers
                        )
                        assert response.status_code == 200, response.text
                        assert response.json()["items"] == [], response.text

                    return run

                denied, missing, other = search(DENIED), search(MISSING), search(OTHER_MISSING)
                for case in (denied, missing, other):
                    for _ in range(20):  # warm: connections, caches, the code paths
                        case()
                rng = random.Random(SEED)
                slow, fast = _pairs(denied, missing, pairs, rng)
                control = _pairs(other, missing, pairs, rng)

                def read(memory_id: str) -> Callable[[], None]:
                    def run() -> None:
                        response = client.get(f"/v1/memory/{memory_id}", headers=headers)
                        assert response.status_code == 404, response.text

                    return run

                kept, unknown, nobody = read(KEPT), read("mem_no-such"), read("mem_nobody")
                for case in (kept, unknown, nobody):
                    for _ in range(20):
                        case()
                memory = _pairs(kept, unknown, pairs, rng)
                memory_control = _pairs(nobody, unknown, pairs, rng)
        finally:
            runtime.close()
    print(
        f"[{backend}] {sources} open sources and 1 restricted; a key pinned to another group; "
        f"{pairs} interleaved pairs, each in a random order"
    )
    _report("denied quote vs missing quote", slow, fast)
    _report("control: missing vs missing", *control)
    _report("denied memory item vs missing one", *memory)
    _report("control: missing vs missing item", *memory_control)


KEPT = "mem_case-4471-note"


def _remember(services: Any, span_id: str) -> None:
    """A memory item with an open scope kept from the restricted source: the pinned key may
    not see it (its source is restricted), so it must read as missing."""
    draft = MemoryDraft(
        purpose="fraud-review",
        scope=SourceAccess(),
        source=[span_id],
        text="The case file names the buyer.",
        expires_at=datetime(2999, 1, 1, tzinfo=UTC),
    )
    services.memory.record(draft, "bench", None, KEPT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--pairs", type=int, default=300)
    parser.add_argument("--sources", type=int, default=200)
    args = parser.parse_args()
    configure_logging("WARNING")
    for backend in ("sqlite", "postgres") if args.backend == "both" else (args.backend,):
        bench(backend, args.sources, args.pairs)


if __name__ == "__main__":
    main()
