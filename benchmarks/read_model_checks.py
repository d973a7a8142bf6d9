"""What the read models' own checks cost: the log anchor per catch-up, the tree-edge check.

Usage: python -m benchmarks.read_model_checks [--backend sqlite|postgres|both] [--rounds 200]

1. Registry catch-up after one source registration (the path a REST write takes for
   read-your-writes): median time with the runner's log anchor switched off (the baseline)
   and on as wired (full only when the position is re-read), alternating in one process; and
   the median time of one full anchor check, as a ratio to that baseline.
2. Opening the transparency tree at its current size (a process start, or after a conflict):
   median time without the check of the right edge against the newest signed checkpoint (the
   baseline) and with it.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from functools import partial

from api.services import open_ledger
from benchmarks._setup import backend_settings
from ledger.registry.source_desk import SourceDraft
from projections.log_anchor import LogAnchor
from projections.service import ReadSide
from projections.transparency import TransparencyProjection


def _ms(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def bench(backend: str, rounds: int) -> None:
    """Both measurements on one backend."""
    with backend_settings(backend) as settings:
        runtime = open_ledger(settings)
        read_side = ReadSide(runtime.ledger, runtime.database, keyring=runtime.keyring)
        try:
            anchor = LogAnchor(runtime.ledger, read_side.db.sync)
            read_side.catch_up()
            timings: dict[bool, list[float]] = {False: [], True: []}
            full: list[float] = []
            for n in range(rounds):
                checked = n % 2 == 1
                runtime.sources.register(
                    f"s{n}", SourceDraft(f"Revenue rose {n}%.", "text/plain", "S"), "derived", "b"
                )
                read_side.transparency.catch_up()  # the full check reads the newest leaf
                read_side.registry.anchor = anchor.check if checked else None
                timings[checked].append(_ms(read_side.registry.catch_up))
                position = read_side.registry.position()
                full.append(_ms(partial(anchor.check, "registry", position, True)))
            base = statistics.median(timings[False])
            with_anchor = statistics.median(timings[True])
            print(
                f"[{backend}] registry catch-up after one registration: median "
                f"{base:.3f} ms without the log anchor, {with_anchor:.3f} ms with it "
                f"(ratio {with_anchor / base:.2f}); one full anchor check (made at start, after "
                f"a conflict and per transparency batch): {statistics.median(full):.3f} ms "
                f"(ratio {statistics.median(full) / base:.2f} to the catch-up)"
            )
            projection = read_side.transparency.projection
            assert isinstance(projection, TransparencyProjection)
            opened: dict[bool, list[float]] = {False: [], True: []}
            check_edge = projection._check_edge
            for n in range(rounds):
                checked = n % 2 == 1
                projection._check_edge = check_edge if checked else (lambda log, note: None)  # type: ignore[method-assign]
                projection.forget()
                opened[checked].append(_ms(projection._open_log))
            projection._check_edge = check_edge  # type: ignore[method-assign]
            base = statistics.median(opened[False])
            with_check = statistics.median(opened[True])
            size = runtime.ledger.last_position()
            print(
                f"[{backend}] opening the tree of {size} leaves: median {base:.3f} ms without "
                f"the edge check, {with_check:.3f} ms with it (ratio {with_check / base:.2f})"
            )
        finally:
            read_side.close()
            runtime.close()


def main() -> None:
    """Parse arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    for backend in ("sqlite", "postgres") if args.backend == "both" else (args.backend,):
        bench(backend, args.rounds)


if __name__ == "__main__":
    main()
