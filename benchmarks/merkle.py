"""Merkle log speed: appends, proofs from stored perfect subtrees, and verification.

Usage: python -m benchmarks.merkle [--leaves N] [--samples S] [--seed X]

Appends N leaf hashes (default 1,000,000) to a :class:`ledger.crypto.merkle_log.MerkleLog`
whose nodes live in a dict (:class:`ledger.crypto.merkle_log.MemoryNodeStore`), and prints
leaves/s, with and without hashing the entries first. Then, over S random requests each
(default 2,000), prints the median and 99th percentile time of: an inclusion proof at the full
size, an inclusion proof at a random earlier size, a consistency proof between two random sizes,
a root at a random earlier size, ``verify_inclusion`` and ``verify_consistency``. Targets: at
least 50,000 appends/s on one core, at most 2 ms per inclusion proof at 1,000,000 leaves.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from ledger.crypto.merkle import leaf_hash, verify_consistency, verify_inclusion
from ledger.crypto.merkle_log import MemoryNodeStore, MerkleLog


def _timings(samples: int, run: Callable[[], object]) -> list[float]:
    times = []
    for _ in range(samples):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return times


def _report(label: str, times: list[float]) -> None:
    median = statistics.median(times) * 1e6
    p99 = statistics.quantiles(times, n=100)[98] * 1e6
    print(f"{label:<44} median {median:8.1f} us   p99 {p99:8.1f} us")


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--leaves", type=int, default=1_000_000)
    parser.add_argument("--samples", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    n: int = args.leaves
    rng = random.Random(args.seed)

    entries = [f"entry {i}".encode() for i in range(n)]
    started = time.perf_counter()
    leaves = [leaf_hash(entry) for entry in entries]
    hashing = time.perf_counter() - started

    store = MemoryNodeStore()
    log = MerkleLog(store.get)
    put, append = store.put, log.append
    started = time.perf_counter()
    for leaf in leaves:
        put(append(leaf))
    appending = time.perf_counter() - started

    print(f"Merkle log, {n:,} leaves, {len(store.nodes):,} stored nodes (dict)")
    print(f"{'append (leaf hashes given)':<44} {n / appending:12,.0f} leaves/s")
    print(f"{'leaf_hash + append':<44} {n / (hashing + appending):12,.0f} leaves/s")

    samples: int = args.samples
    indexes = [rng.randrange(n) for _ in range(samples)]
    it = iter(indexes)
    _report(
        f"inclusion proof at size {n:,}", _timings(samples, lambda: log.inclusion_proof(next(it)))
    )

    pairs = [sorted((rng.randint(1, n), rng.randint(1, n))) for _ in range(samples)]
    it_pairs = iter(pairs)

    def earlier_inclusion() -> object:
        size1, size2 = next(it_pairs)
        return log.inclusion_proof(size1 - 1, size2)

    _report("inclusion proof at a random earlier size", _timings(samples, earlier_inclusion))

    it_pairs = iter(pairs)

    def consistency() -> object:
        size1, size2 = next(it_pairs)
        return log.consistency_proof(size1, size2)

    _report("consistency proof between random sizes", _timings(samples, consistency))
    it = iter(indexes)
    _report("root at a random earlier size", _timings(samples, lambda: log.root(next(it) + 1)))

    root = log.root()
    inclusion_cases = [(i, log.inclusion_proof(i)) for i in indexes]
    it_cases = iter(inclusion_cases)

    def verify_one_inclusion() -> None:
        index, proof = next(it_cases)
        verify_inclusion(leaves[index], index, n, proof, root)

    _report(f"verify_inclusion at size {n:,}", _timings(samples, verify_one_inclusion))

    consistency_cases = [
        (size1, log.consistency_proof(size1), log.root(size1)) for size1, _ in pairs
    ]
    it_consistency = iter(consistency_cases)

    def verify_one_consistency() -> None:
        size1, proof, root1 = next(it_consistency)
        verify_consistency(size1, n, proof, root1, root)

    _report(f"verify_consistency to size {n:,}", _timings(samples, verify_one_consistency))


if __name__ == "__main__":
    main()
