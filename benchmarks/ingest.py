"""End-to-end ingestion: events plus registry projection, spans/s and bytes per span.

Usage: python -m benchmarks.ingest [--docs N] [--backend sqlite|postgres|both]

Each document has 40 sentences of report-like prose (abbreviations, decimals, money, section
references). Two modes: one document per transaction with the registry projection caught up
after each, as ``POST /v1/sources`` does (read-your-writes); and a bulk load of 50 documents per
transaction with the projection caught up after each batch, as ``provledger ingest`` does.
Prints spans/s, documents/s, bytes stored per span (events plus read model, indexes
included) and the time to ingest 100,000 such documents extrapolated from the slice.
"""

from __future__ import annotations

import argparse
import random
import time

from sqlalchemy import text as sql_text

from benchmarks._setup import backend_settings, open_signed
from ledger.registry.source_desk import BatchItem, SourceDraft
from projections.database import readmodel_path
from projections.service import ReadSide

SENTENCES = [
    "Dr. Alvarez reviewed the U.S. filing on Jan. 12 and approved it.",
    "Revenue rose 2.2% to $4.5 million in fiscal 2023.",
    "See section 4.2.1(b) for the treatment of deferred items.",
    "The committee did not approve the proposal.",
    "Operating costs fell by 350 basis points year over year.",
    "Mr. Chen, the C.F.O., said margins were stable.",
    "Customers may return damaged goods within 30 days.",
    "The ratio of debt to equity was 0.42 at year end.",
    "No dividend was declared for the quarter ended Sept. 30.",
    "According to Fig. 3, growth was strongest in the E.U. market.",
]
TARGET_DOCS = 100_000
SENTENCES_PER_DOC = 40


def make_document(rng: random.Random, index: int) -> str:
    """One 40-sentence document in four paragraphs."""
    paragraphs = []
    for part in range(4):
        chosen = [rng.choice(SENTENCES) for _ in range(SENTENCES_PER_DOC // 4)]
        paragraphs.append(f"Item {index}.{part}: " + " ".join(chosen))
    return "\n\n".join(paragraphs) + "\n"


def stored_bytes(runtime_database: object, read_side: ReadSide) -> int:
    """Bytes used by events and registry tables, indexes included."""
    database = read_side.db.database
    if database.kind == "sqlite":
        assert database.sqlite_path is not None
        total = 0
        for path in (database.sqlite_path, readmodel_path(database)):
            for suffix in ("", "-wal"):
                candidate = path.with_name(path.name + suffix)
                if candidate.exists():
                    total += candidate.stat().st_size
        return total
    with read_side.db.sync.connect() as conn:
        query = sql_text(
            "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = :schema AND c.relkind = 'r'"
        )
        return int(conn.execute(query, {"schema": database.schema}).scalar_one())


def bench_backend(backend: str, docs: int, batch: int) -> None:
    """Ingest ``docs`` documents on one backend and print the figures."""
    rng = random.Random(7)
    texts = [make_document(rng, i) for i in range(docs)]
    with backend_settings(backend) as settings:
        runtime = open_signed(settings)
        read_side = ReadSide(runtime.ledger, runtime.database)
        try:
            spans = 0
            started = time.perf_counter()
            if batch == 1:
                for i, text in enumerate(texts):
                    receipt = runtime.sources.register(
                        f"doc-{i}", SourceDraft(text, "text/plain", f"D{i}"), "derived", "key:b"
                    )
                    read_side.catch_up()
                    spans += len(receipt.spans)
            else:
                for offset in range(0, docs, batch):
                    items = [
                        BatchItem(f"doc-{i}", SourceDraft(texts[i], "text/plain", f"D{i}"))
                        for i in range(offset, min(offset + batch, docs))
                    ]
                    outcomes = runtime.sources.ingest_batch(items, "key:b")
                    read_side.catch_up()
                    spans += sum(outcome.span_count for outcome in outcomes)
            elapsed = time.perf_counter() - started
            if backend == "sqlite":
                with read_side.db.sync.connect() as conn:
                    conn.execute(sql_text("PRAGMA wal_checkpoint(TRUNCATE)"))
            size = stored_bytes(runtime.database, read_side)
        finally:
            read_side.close()
            runtime.close()
    per_doc = elapsed / docs
    mode = "per request" if batch == 1 else f"bulk, {batch} documents per transaction"
    print(f"[{backend}] mode: {mode}")
    print(f"[{backend}] documents: {docs}, spans: {spans} ({spans / docs:.1f} per document)")
    print(
        f"[{backend}] ingestion (events + registry projection): {spans / elapsed:,.0f} spans/s, "
        f"{docs / elapsed:,.1f} documents/s"
    )
    print(f"[{backend}] stored: {size / spans:,.0f} bytes per span (events + registry, indexes)")
    print(
        f"[{backend}] extrapolated {TARGET_DOCS:,} documents: {per_doc * TARGET_DOCS / 60:,.1f} min"
    )


def main() -> None:
    """Parse arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=5000)
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument(
        "--batch",
        type=int,
        default=0,
        help="documents per transaction: 1 = one request each, projection caught up after "
        "each (as POST /v1/sources); 50 = a bulk load (as provledger ingest); default: both",
    )
    args = parser.parse_args()
    modes = [1, 50] if args.batch == 0 else [args.batch]
    for backend in ["sqlite", "postgres"] if args.backend == "both" else [args.backend]:
        for batch in modes:
            bench_backend(backend, args.docs, batch)


if __name__ == "__main__":
    main()
