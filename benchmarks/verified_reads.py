"""What verifying reads costs, as ratios against unverified reads in the same process.

Usage: python -m benchmarks.verified_reads [--backend sqlite|postgres|both] [--reads 2000]

On a fresh ledger with one API key (3 events: issued, revoked, reissued) and one source, it
times, per read, in CPU time of this process:
1. the key's events read and decoded without checks (the baseline: what reads cost before);
2. the same read verified, every event remembered (the hot path of authentication);
3. the same read verified with nothing remembered (each event's signature checked);
4. a span resolved from the read model alone, and resolved and rebuilt from verified events
   (what the gate reads per commit).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from benchmarks._setup import backend_settings, open_signed
from ledger.audit.verified_reads import EventChecks
from ledger.keys.api_keys import key_aggregate_id
from ledger.registry.source_desk import SourceDraft
from projections.service import ReadSide

SENTENCES = " ".join(
    f"Segment {i} revenue rose {i}.{i % 10}% to ${i + 1}.5 million in fiscal 2023."
    for i in range(40)
)


def _cpu_per_call(call: Callable[[], object], count: int) -> float:
    """CPU seconds of this process per call of ``call``."""
    started = time.process_time()
    for _ in range(count):
        call()
    return (time.process_time() - started) / count


def bench(backend: str, reads: int) -> None:
    """Time each read ``reads`` times on ``backend`` and print the ratios."""
    with backend_settings(backend) as settings:
        runtime = open_signed(settings)
        ledger, keys = runtime.ledger, runtime.api_keys
        read_side = ReadSide(ledger, runtime.database)
        try:
            checks = ledger.checks
            if not isinstance(checks, EventChecks):  # the cold read drops what it remembers
                raise TypeError(
                    f"expected EventChecks on the ledger, found {type(checks).__name__}"
                )
            keys.issue("bench", ["read"], "bench")
            keys.revoke("bench", "rotate", "bench")
            keys.issue("bench", ["read"], "bench")
            version = runtime.sources.register(
                "bench", SourceDraft(SENTENCES, "text/plain", "Bench"), "derived", "bench"
            )
            read_side.catch_up()
            key = key_aggregate_id("bench")
            span_ids = [version.spans[0].span_id]
            inner = read_side.span_resolver.index

            def raw() -> object:
                return [
                    ledger.mapper.to_domain_event(stored)
                    for stored in ledger.recorder.select_events(key)
                ]

            def remembered() -> object:
                return list(ledger.events.get(key))

            def cold() -> object:
                checks.forget()
                return list(ledger.events.get(key))

            remembered()
            read_side.span_resolver.resolve(span_ids)
            base = _cpu_per_call(raw, reads)
            hot = _cpu_per_call(remembered, reads)
            fresh = _cpu_per_call(cold, max(reads // 4, 10))
            span_base = _cpu_per_call(lambda: inner.resolve(span_ids), reads)
            span_verified = _cpu_per_call(lambda: read_side.span_resolver.resolve(span_ids), reads)
        finally:
            read_side.close()
            runtime.close()
    print(f"[{backend}] key read, unverified: {base * 1e6:,.0f} us (baseline)")
    print(
        f"[{backend}] key read, verified, remembered: {hot * 1e6:,.0f} us "
        f"({hot / base:.2f}x the baseline)"
    )
    print(
        f"[{backend}] key read, verified, nothing remembered: {fresh * 1e6:,.0f} us "
        f"({fresh / base:.2f}x the baseline)"
    )
    print(
        f"[{backend}] span resolved, read model alone: {span_base * 1e6:,.0f} us; rebuilt from "
        f"verified events: {span_verified * 1e6:,.0f} us ({span_verified / span_base:.2f}x)"
    )


def main() -> None:
    """Parse arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--reads", type=int, default=2000)
    args = parser.parse_args()
    for backend in ["sqlite", "postgres"] if args.backend == "both" else [args.backend]:
        bench(backend, args.reads)


if __name__ == "__main__":
    main()
