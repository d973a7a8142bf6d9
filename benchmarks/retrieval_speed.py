"""Hybrid retrieval speed on one core: index build rate and query latency over 100,000 spans.

The spans are WiCE dev article sentences when the shared data is present (repeated with a
counter appended until there are enough), else sentences drawn from a fixed vocabulary. The
build covers what a process does from the retrieval rows plus what the projection does once
per span: terms, dense vectors, the BM25 matrix. A query is one full hybrid retrieval (both
rankers, RRF, the gate) for k = 20 over every span.

The baseline, run in the same process on the same spans: the ledger's pure-Python BM25
(:class:`ledger.attribution.ranker.Bm25Ranker`, written for a receipt's pool of at most a few
thousand spans) ranking all of them for the same queries, and, for the build, the term pass
alone.

    python -m benchmarks.retrieval_speed [--spans N] [--queries N]
"""

from __future__ import annotations

import os

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Sequence  # noqa: E402

import numpy as np  # noqa: E402

from benchmarks.eval_cases import data_dir  # noqa: E402
from ledger.attribution.ranker import Bm25Ranker, Candidate  # noqa: E402
from ledger.retrieval.dense import Embedder  # noqa: E402
from ledger.retrieval.index import IndexedSpan, SpanIndex, embed_spans, span_terms  # noqa: E402
from ledger.retrieval.retriever import HybridRetriever, RetrievalQuery  # noqa: E402

AS_OF = "2026-01-01T00:00:00.000000Z"
_WORDS = [
    "revenue",
    "income",
    "sales",
    "cost",
    "margin",
    "tax",
    "share",
    "dividend",
    "quarter",
    "segment",
    "board",
    "office",
    "market",
    "growth",
    "decline",
    "customer",
    "product",
    "service",
    "contract",
    "lease",
    "debt",
    "equity",
    "cash",
    "flow",
    "operating",
    "interest",
    "fiscal",
    "year",
    "period",
    "region",
    "europe",
    "asia",
    "america",
    "employee",
    "pension",
    "river",
    "city",
    "album",
    "film",
    "season",
    "election",
    "party",
    "minister",
    "court",
    "school",
    "station",
    "bridge",
]


def sentences(count: int) -> list[str]:
    """``count`` sentences: WiCE article sentences if present, else generated ones."""
    root = data_dir()
    pool: list[str] = []
    if root is not None:
        path = root / "wice" / "entailment_retrieval" / "claim" / "dev.jsonl"
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                pool.extend(s for s in json.loads(line)["evidence"] if len(s.split()) >= 4)
    rng = random.Random(7)
    if not pool:
        pool = [
            " ".join(rng.choice(_WORDS) for _ in range(rng.randint(8, 30))) + "."
            for _ in range(20_000)
        ]
    return [
        pool[i % len(pool)] + (f" ({i // len(pool)})" if i >= len(pool) else "")
        for i in range(count)
    ]


def spans_of(texts: Sequence[str]) -> list[IndexedSpan]:
    """Indexed spans of ``texts``, each its own source, all in force."""
    return [
        IndexedSpan(
            f"sp_{i:024x}",
            f"doc-{i // 40}",
            1,
            0,
            len(t),
            t,
            (),
            None,
            None,
            "derived",
            "2000-01-01T00:00:00.000000Z",
            None,
            False,
        )
        for i, t in enumerate(texts)
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spans", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--baseline-queries", type=int, default=5)
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    texts = sentences(args.spans)
    spans = spans_of(texts)
    embedder = Embedder()
    embedder.embed(texts[:256])  # warm the tokenizer

    started = time.perf_counter()
    terms = [span_terms(s) for s in spans]
    terms_took = time.perf_counter() - started
    vectors, tokens = embed_spans(embedder, spans)
    embedded = time.perf_counter()
    index = SpanIndex(spans, terms, vectors, embedder.version, tokens=tokens)
    build_took = time.perf_counter() - started
    print(f"spans: {len(spans):,}  (one core)")
    print(
        f"build: {len(spans) / build_took:,.0f} spans/s ({build_took:.2f} s: terms "
        f"{terms_took:.2f} s, vectors {embedded - started - terms_took:.2f} s, "
        f"BM25 matrix and masks {build_took - (embedded - started):.2f} s); "
        f"baseline (terms alone) {len(spans) / terms_took:,.0f} spans/s, "
        f"ratio {terms_took / build_took:.2f}"
    )
    stored = [t.astype("<u2").tobytes() for t in tokens]  # as the rows hold them
    rebuilt = time.perf_counter()
    SpanIndex(
        spans,
        terms,
        vectors,
        embedder.version,
        tokens=[np.frombuffer(b, dtype="<u2").astype(np.uint16) for b in stored],
    )
    reload_took = time.perf_counter() - rebuilt
    print(
        f"index from stored terms, vectors and tokens (what a process does): {reload_took:.2f} s "
        f"({len(spans) / reload_took:,.0f} spans/s)"
    )

    rng = random.Random(11)
    queries = [
        " ".join(rng.sample(texts[rng.randrange(len(texts))].split(), 4))
        for _ in range(args.queries)
    ]
    retriever = HybridRetriever(embedder)
    latencies = []
    for query in queries:
        t0 = time.perf_counter()
        try:
            retriever.retrieve(index, RetrievalQuery(query, 20, AS_OF))
        except Exception:  # a sampled query of stop words only
            continue
        latencies.append(time.perf_counter() - t0)
    latencies.sort()
    p50 = statistics.median(latencies)
    p95 = latencies[int(0.95 * (len(latencies) - 1))]
    print(
        f"query k=20: p50 {1000 * p50:.1f} ms, p95 {1000 * p95:.1f} ms over "
        f"{len(latencies)} queries"
    )

    candidates = [Candidate(s.span_id, s.text) for s in spans]
    ranker = Bm25Ranker()
    base = []
    for query in queries[: args.baseline_queries]:
        t0 = time.perf_counter()
        ranker.rank(query, candidates)
        base.append(time.perf_counter() - t0)
    base_p50 = statistics.median(base)
    print(
        f"baseline (pure-Python BM25, the same spans): p50 {1000 * base_p50:.0f} ms over "
        f"{len(base)} queries; hybrid is {base_p50 / p50:.0f}x faster"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
