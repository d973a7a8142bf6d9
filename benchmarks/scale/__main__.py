"""``python -m benchmarks.scale``: build or resume the ledgers, then measure every path.

    python -m benchmarks.scale [--backend sqlite|postgres|both] [--sizes 10k,100k,1m]
        [--seconds 60] [--quiet 20] [--rebuild 10k,100k] [--build-only] [--root DIR]

Long builds should run under ``nice -n 10``; a built ledger is resumed, never built again.
The figures go to stdout and, as JSON, to ``<root>/results-<time>.json``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from benchmarks.eval_cases import data_dir
from benchmarks.scale.corpus import Corpus
from benchmarks.scale.ledgers import BACKENDS, DEFAULT_ROOT, SIZES, ScaleLedger, build, prepare
from benchmarks.scale.report import machine, measure, print_tables


def main() -> None:
    """Parse the arguments and run."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.scale")
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--data", help="the dev data folder (default ../shared/data)")
    parser.add_argument("--backend", choices=(*BACKENDS, "both"), default="both")
    parser.add_argument("--sizes", default=",".join(SIZES))
    parser.add_argument("--seconds", type=float, default=60.0, help="mixed workload, each ledger")
    parser.add_argument("--quiet", type=float, default=20.0, help="retrieval alone, each ledger")
    parser.add_argument("--rebuild", default="10k,100k", help="sizes to time a full rebuild at")
    parser.add_argument("--build-only", action="store_true")
    args = parser.parse_args()
    root = data_dir(args.data)
    if root is None:
        raise SystemExit("the dev data folder (../shared/data) is missing")
    corpus = Corpus(root)
    backends = BACKENDS if args.backend == "both" else (args.backend,)
    sizes = args.sizes.split(",")
    ledgers = [ScaleLedger(b, s, args.root) for b in backends for s in sizes]
    for ledger in ledgers:
        reached = build(ledger, corpus, lambda line: print(line, flush=True))
        print(
            f"{ledger.name}: built, {reached['documents']:,} documents, {reached['spans']:,} spans",
            flush=True,
        )
    if args.build_only:
        return
    results = []
    for ledger in ledgers:
        prepared = prepare(ledger, lambda line: print(line, flush=True))
        result = measure(
            ledger, corpus, prepared, args.seconds, args.quiet, ledger.size in args.rebuild
        )
        print(f"{ledger.name}: measured", flush=True)
        results.append(result)
    heading = machine()
    out = args.root / f"results-{time.strftime('%Y%m%dT%H%M%S')}.json"
    print_tables(results, heading)
    out.write_text(json.dumps({"machine": heading, "results": results}, indent=1, default=str))
    print(f"\nfigures saved to {out}")


if __name__ == "__main__":
    main()
