"""The transparency log: projection throughput, proof serving and offline bundle checks.

Usage: python -m benchmarks.transparency [--events N] [--backend sqlite|postgres|both]

1. Appends N events (API key issue/revoke pairs), then times the transparency projection
   catching up from zero: leaves/s (leaf hashing, node computation, rows and checkpoint).
2. Serves inclusion proofs for random leaves at that size through the read-model query:
   median and p99 (the in-memory figures for 1,000,000 leaves are in benchmarks.merkle).
3. Builds one citation-chain bundle and verifies it offline repeatedly: median time.
4. With ``--proof-leaves N`` (default 1,000,000): fills the read model's tree tables with N
   synthetic leaves (hashes of their index, written as the projection writes them, plus a
   checkpoint), then serves inclusion proofs for random leaves at that size: median and p99.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from sqlalchemy import insert

from benchmarks._setup import backend_settings, open_signed
from ledger.audit.bundle.verify import verify_bundle
from ledger.crypto.canonical import canonical_json
from ledger.crypto.merkle import leaf_hash
from ledger.crypto.merkle_log import MerkleLog
from ledger.crypto.signing import Keyring
from ledger.eventlog.envelope import open_state
from ledger.gate import Binding, ClaimDraft, GateConfig
from ledger.receipts.expiry_desk import ExpiryDesk
from ledger.receipts.receipt_desk import CommitRequest, ReceiptDesk, ReceiptRequest
from ledger.registry.source_desk import BatchItem, SourceDraft
from projections import transparency_queries as tq
from projections.bundle import build_bundle
from projections.database import bulk_insert
from projections.schema import TRANSPARENCY_TABLES, checkpoints, merkle_leaves, merkle_nodes
from projections.service import ReadSide


def bench(backend: str, events: int, proof_leaves: int) -> None:
    """Run the three measurements on one backend."""
    with backend_settings(backend) as settings:
        runtime = open_signed(settings)
        read_side = ReadSide(runtime.ledger, runtime.database)
        try:
            items = [
                BatchItem(f"d{i}", SourceDraft(f"Sentence {i} of the corpus.", "text/plain", "D"))
                for i in range(events // 2)
            ]
            for offset in range(0, len(items), 500):
                runtime.sources.ingest_batch(items[offset : offset + 500], "key:b")
            read_side.registry.catch_up()
            read_side.receipts.catch_up()
            started = time.perf_counter()
            read_side.transparency.catch_up()
            elapsed = time.perf_counter() - started
            size = runtime.ledger.last_position()
            print(
                f"[{backend}] transparency projection: {size} leaves in {elapsed:.2f}s, "
                f"{size / elapsed:,.0f} leaves/s (with a signed checkpoint per 2,000)"
            )
            timings = _proofs(read_side, size)
            print(
                f"[{backend}] inclusion proof served at size {size}: median "
                f"{statistics.median(timings) * 1000:.2f} ms, p99 "
                f"{sorted(timings)[int(len(timings) * 0.99)] * 1000:.2f} ms"
            )
            _bundle(runtime, read_side, backend)
            if proof_leaves:
                _large_tree(read_side, backend, proof_leaves)
        finally:
            read_side.close()
            runtime.close()


def _large_tree(read_side: ReadSide, backend: str, leaves: int) -> None:
    """Replace the tree with ``leaves`` synthetic leaves and time proofs at that size."""
    engine = read_side.db.sync
    log = MerkleLog(lambda level, index: b"", 0)
    started = time.perf_counter()
    with engine.begin() as conn:
        for table in reversed(TRANSPARENCY_TABLES):
            conn.execute(table.delete())
        for offset in range(0, leaves, 100_000):
            end = min(offset + 100_000, leaves)
            nodes = [
                node
                for i in range(offset, end)
                for node in log.append(leaf_hash(i.to_bytes(8, "big")))
            ]
            bulk_insert(conn, merkle_nodes, ("level", "idx", "hash"), nodes)
            bulk_insert(
                conn,
                merkle_leaves,
                ("leaf_index", "notification_id", "originator_id", "originator_version"),
                [(i, i + 1, f"00000000-0000-0000-0000-{i:012d}", 1) for i in range(offset, end)],
            )
        conn.execute(
            insert(checkpoints).values(
                size=leaves, root=log.root(), note="-", created_at="-", position=leaves
            )
        )
    print(
        f"[{backend}] {leaves:,} synthetic leaves written in {time.perf_counter() - started:.0f}s"
    )
    timings = _proofs(read_side, leaves)
    print(
        f"[{backend}] inclusion proof served at size {leaves:,}: median "
        f"{statistics.median(timings) * 1000:.2f} ms, p99 "
        f"{sorted(timings)[int(len(timings) * 0.99)] * 1000:.2f} ms"
    )


def _proofs(read_side: ReadSide, size: int) -> list[float]:
    """Each proof as the endpoint serves it: a pooled connection, two queries."""
    rng = random.Random(3)
    timings = []
    for _ in range(300):
        index = rng.randrange(size)
        started = time.perf_counter()
        with read_side.db.sync.connect() as conn:
            tq.inclusion(conn, index, size)
        timings.append(time.perf_counter() - started)
    return timings


def _bundle(runtime, read_side: ReadSide, backend: str) -> None:  # type: ignore[no-untyped-def]
    receipt_text = "Revenue rose 2.2% to $4.5 million in 2023. The board met twice."
    version = runtime.sources.register(
        "bundle-src", SourceDraft(receipt_text, "text/plain", "B"), "derived", "key:b"
    )
    read_side.catch_up()
    span = version.spans[0]
    desk = ReceiptDesk(
        runtime.ledger,
        read_side.span_resolver,
        GateConfig(),
        ExpiryDesk(runtime.ledger),
        runtime.policies,
        runtime.components,
    )
    receipt, _ = desk.open(
        ReceiptRequest(
            "q",
            "u",
            "p",
            "1",
            "long_context",
            {"name": "m", "version": "1"},
            [],
            [span.span_id],
            [],
        ),
        "key:b",
    )
    result = desk.commit(
        receipt.receipt_id,
        CommitRequest([ClaimDraft(span.text, bindings=(Binding(span.span_id),))], fingerprint="b"),
        "key:b",
        None,
    )
    claim_id = result.body["committed"][0]["claim_id"]
    bundle = build_bundle(claim_id, read_side, runtime)
    timings, baseline = [], []
    for _ in range(50):
        started = time.perf_counter()
        checklist = verify_bundle(bundle, runtime.keyring)
        timings.append(time.perf_counter() - started)
        assert checklist.ok, checklist.items
        started = time.perf_counter()
        _signatures_alone(bundle, runtime.keyring)
        baseline.append(time.perf_counter() - started)
    median, base = statistics.median(timings), statistics.median(baseline)
    print(
        f"[{backend}] bundle ({len(bundle['events'])} events) verified offline: median "
        f"{median * 1000:.2f} ms, {median / base:.1f}x checking its events' signatures alone "
        f"({base * 1000:.2f} ms)"
    )


def _signatures_alone(bundle: dict[str, Any], keyring: Keyring) -> None:
    """The baseline: each event's Ed25519 signature over its canonical body, nothing else."""
    for event in bundle["events"]:
        sealed = open_state(canonical_json(event["stored"]))
        assert keyring.verify(sealed.kid, sealed.body_bytes, sealed.signature)


def main() -> None:
    """Parse arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--proof-leaves", type=int, default=1_000_000)
    args = parser.parse_args()
    for backend in ["sqlite", "postgres"] if args.backend == "both" else [args.backend]:
        bench(backend, args.events, args.proof_leaves)


if __name__ == "__main__":
    main()
