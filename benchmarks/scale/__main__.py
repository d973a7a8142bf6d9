"""``python -m benchmarks.scale``: build the ledgers, then measure (see the package)."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.eval_cases import data_dir
from benchmarks.scale.corpus import Corpus
from benchmarks.scale.ledgers import BACKENDS, DEFAULT_ROOT, SIZES, ScaleLedger, build


def main() -> None:
    """Parse the arguments and run."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.scale")
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--data", help="the dev data folder (default ../shared/data)")
    parser.add_argument("--backend", choices=(*BACKENDS, "both"), default="both")
    parser.add_argument("--sizes", default=",".join(SIZES))
    parser.add_argument("--build-only", action="store_true")
    args = parser.parse_args()
    root = data_dir(args.data)
    if root is None:
        raise SystemExit("the dev data folder (../shared/data) is missing")
    corpus = Corpus(root)
    backends = BACKENDS if args.backend == "both" else (args.backend,)
    for size in args.sizes.split(","):
        for backend in backends:
            ledger = ScaleLedger(backend, size, args.root)
            reached = build(ledger, corpus, lambda line: print(line, flush=True))
            print(
                f"{ledger.name}: built, {reached['documents']:,} documents, "
                f"{reached['spans']:,} spans",
                flush=True,
            )


if __name__ == "__main__":
    main()
