"""Signed, chained appends against bare eventsourcing appends, and verify throughput.

Usage: python -m benchmarks.append [--events N] [--backend sqlite|postgres|both]

For each backend, in one process: write N events through a bare ``eventsourcing``
application and through the signed ledger (same aggregate shape, one event per save: half
creations, half amendments), print both rates and their ratio, then walk the signed log with
the verifier (what ``provledger verify`` runs) and print its rate.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from benchmarks._setup import (
    BareNote,
    SignedNote,
    backend_settings,
    open_bare,
    open_signed,
)
from ledger.audit.log_verify import verify_log

TAGS = ["finance", "q3"]


def _timed(run: Callable[[], None]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def bench_backend(backend: str, events: int) -> None:
    """Run the comparison on one backend and print its figures."""
    creations = events // 2
    with backend_settings(backend) as settings:
        bare = open_bare(settings)
        signed = open_signed(settings)
        ledger = signed.ledger
        try:

            def run_bare() -> None:
                notes = []
                for i in range(creations):
                    note = BareNote(text=f"note {i} cites section 4.2.1(b)", tags=TAGS)
                    bare.save(note)
                    notes.append(note)
                for i, note in enumerate(notes):
                    note.trigger_event(BareNote.Amended, text=f"amended {i}")
                    bare.save(note)

            def run_signed() -> None:
                notes = []
                for i in range(creations):
                    note = SignedNote._create(
                        SignedNote.Written,
                        id=SignedNote.create_id(),
                        text=f"note {i} cites section 4.2.1(b)",
                        tags=TAGS,
                        actor="key:bench",
                    )
                    ledger.save(note)
                    notes.append(note)
                for i, note in enumerate(notes):
                    note.trigger_event(SignedNote.Amended, text=f"amended {i}", actor="key:bench")
                    ledger.save(note)

            # Alternate the two twice and keep each one's best run, so that warm-up and
            # database growth do not favour whichever runs second.
            bare_seconds = signed_seconds = float("inf")
            for _ in range(2):
                bare_seconds = min(bare_seconds, _timed(run_bare))
                signed_seconds = min(signed_seconds, _timed(run_signed))
            report = verify_log(ledger.recorder, signed.keyring)
        finally:
            bare.close()
            signed.close()
    total = creations * 2  # per run
    bare_rate = total / bare_seconds
    signed_rate = total / signed_seconds
    assert report.ok, report.failure
    print(f"[{backend}] events appended per run: {total} (one event per save; best of 2)")
    print(f"[{backend}] bare eventsourcing append:  {bare_rate:10,.0f} events/s")
    print(f"[{backend}] signed+chained append:      {signed_rate:10,.0f} events/s")
    print(f"[{backend}] cost ratio (signed / bare time): {signed_seconds / bare_seconds:.2f}x")
    print(f"[{backend}] verify: {report.events} events, {report.events_per_second:,.0f} events/s")


def main() -> None:
    """Parse arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    args = parser.parse_args()
    backends = ["sqlite", "postgres"] if args.backend == "both" else [args.backend]
    for backend in backends:
        bench_backend(backend, args.events)


if __name__ == "__main__":
    main()
