"""Hybrid retrieval quality on the shared dev splits: BM25 alone, dense alone and RRF.

WiCE dev: every article's sentences form one index (duplicated articles once); the query is
the claim; a hit is a sentence of a gold supporting set. Reported: recall@5 and @10 of the
best supporting set (the share of its sentences retrieved, the best set per claim) and MRR of
the first supporting sentence. TAT-QA dev: every context's paragraphs and table cells (with
their envelopes) form one index; the query is the question; the gold units are the
paragraphs the question names and the cells that hold its answer or the operands of its
derivation. Reported: recall@5 and @10 of those units and MRR.

Cases are split into halves by document (:func:`benchmarks.eval_cases.half_of`). ``--tune``
chooses the lexical gate's threshold on the tune half only (the best mean RRF recall@5 of the
two data sets, the stricter threshold on a tie) and prints it; every figure is printed for
both halves. Test splits are never read.

    python -m benchmarks.retrieval_eval [--data DIR] [--tune] [--limit N]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.eval_cases import HALVES, data_dir, half_of
from benchmarks.tatqa_cases import _operand_values, bind_operands, paragraph_sentences
from benchmarks.tatqa_tables import _clean_cell, _table_spans, caption
from ledger.retrieval.dense import CONTEXT_WEIGHT, CONTEXT_WINDOW, Embedder
from ledger.retrieval.gate import GATE_THRESHOLD, LexicalGate
from ledger.retrieval.index import IndexedSpan, SpanIndex, embed_spans, span_terms
from ledger.retrieval.port import SearchIndex
from ledger.retrieval.retriever import HybridRetriever, RetrievalQuery
from projections.search.standalone import standalone_index

AS_OF = "2026-01-01T00:00:00.000000Z"
MODES = {"bm25": ("bm25",), "dense": ("dense",), "rrf": ("bm25", "dense")}
THRESHOLDS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5)
CONTEXTS = ((0, 0.0), *((w, c) for w in (1, 2, 3) for c in (1.0, 2.0, 4.0, 8.0)))
"""Prose context (window, weight) tried by ``--context``; (0, 0.0) is no context."""


@dataclass(frozen=True)
class EvalCase:
    """A query, the gold unit sets (any one set satisfies it) and its half."""

    query: str
    gold: tuple[frozenset[str], ...]
    half: str


def unit(key: str, text: str, envelope: str | None = None) -> IndexedSpan:
    """An evaluation unit as an indexed span (its id is the unit key)."""
    return IndexedSpan(
        key, key.split(":", 1)[0], 1, 0, len(text), text, (), envelope, None,
        "source_of_record", "2000-01-01T00:00:00.000000Z", None, False,
    )  # fmt: skip


def wice(root: Path, rows: int | None = None) -> tuple[list[IndexedSpan], list[EvalCase]]:
    """WiCE dev: sentences of every cited article (of the first ``rows`` rows), claims with
    their supporting sets."""
    path = root / "wice" / "entailment_retrieval" / "claim" / "dev.jsonl"
    spans: dict[str, IndexedSpan] = {}
    cases = []
    for line in path.read_text(encoding="utf-8").splitlines()[:rows]:
        if not line.strip():
            continue
        row = json.loads(line)
        sentences = [str(s) for s in row["evidence"]]
        article = hashlib.sha256("\n".join(sentences).encode()).hexdigest()[:12]
        for i, text in enumerate(sentences):
            if text.strip():
                spans.setdefault(f"w{article}:{i}", unit(f"w{article}:{i}", text))
        gold = tuple(
            frozenset(f"w{article}:{i}" for i in group)
            for group in row["supporting_sentences"]
            if group
        )
        if gold:
            cases.append(EvalCase(str(row["claim"]), gold, half_of(article)))
    return list(spans.values()), cases


def _answer_texts(answer: object) -> set[str]:
    values = answer if isinstance(answer, list) else [answer]
    return {_norm(str(v)) for v in values if str(v).strip()}


def _norm(text: str) -> str:
    return re.sub(r"[\s$,()%]", "", text).lower()


def tatqa(root: Path) -> tuple[list[IndexedSpan], list[EvalCase]]:
    """TAT-QA dev: paragraphs and cells of every context; questions with their gold units."""
    contexts = json.loads((root / "tatqa" / "tatqa_dataset_dev.json").read_text())
    spans: list[IndexedSpan] = []
    cases = []
    for context in contexts:
        uid = str(context["table"]["uid"])
        key = f"t{uid[:12]}"
        table = context["table"]["table"]
        sentences = paragraph_sentences(context)
        cells = _table_spans(table, caption(table, sentences))
        for p in context["paragraphs"]:
            spans.append(unit(f"{key}:p{p['order']}", str(p["text"])))
        for cell in cells:
            spans.append(unit(f"{key}:{cell.span_id}", cell.text, cell.envelope))
        for q in context["questions"]:
            gold = {f"{key}:p{order}" for order in q["rel_paragraphs"]}
            if q["answer_from"] != "text":
                if q["answer_type"] == "arithmetic":
                    bound = bind_operands(
                        q["question"], _operand_values(q["derivation"]), cells, sentences
                    )
                    gold |= {f"{key}:{c}" for c in bound or {} if c.startswith("t")}
                else:
                    wanted = _answer_texts(q["answer"])
                    gold |= {
                        f"{key}:{c.span_id}" for c in cells if _norm(_clean_cell(c.text)) in wanted
                    }
            if gold:
                cases.append(EvalCase(str(q["question"]), (frozenset(gold),), half_of(uid)))
    return spans, cases


ENGINES = ("search", "memory")
"""``search``: the service's engine (Tantivy and the mapped dense arrays,
:mod:`projections.search`); ``memory``: the in-memory reference (:class:`SpanIndex`)."""


def build(
    spans: Sequence[IndexedSpan],
    embedder: Embedder,
    context: tuple[int, float] = (CONTEXT_WINDOW, CONTEXT_WEIGHT),
    engine: str = "search",
) -> SearchIndex:
    """An index over ``spans``, terms and vectors computed here as the projection stores
    them (``context``: the prose spans' context window and weight), on ``engine``."""
    vectors, tokens = embed_spans(embedder, spans, *context)
    terms = [span_terms(s) for s in spans]
    if engine == "memory":
        return SpanIndex(spans, terms, vectors, embedder.version, tokens=tokens)
    folder = Path(tempfile.mkdtemp(prefix="provledger-eval-"))
    _FOLDERS.append(folder)
    return standalone_index(folder, spans, terms, vectors, tokens, embedder.version)


_FOLDERS: list[Path] = []


@dataclass
class Scores:
    """Recall@5, recall@10 and MRR summed over cases."""

    n: int = 0
    r5: float = 0.0
    r10: float = 0.0
    mrr: float = 0.0

    def add(self, ranked: Sequence[str], gold: tuple[frozenset[str], ...]) -> None:
        self.n += 1
        self.r5 += max(len(g & set(ranked[:5])) / len(g) for g in gold)
        self.r10 += max(len(g & set(ranked[:10])) / len(g) for g in gold)
        union = frozenset().union(*gold)
        first = next((i for i, key in enumerate(ranked, start=1) if key in union), None)
        self.mrr += 0.0 if first is None else 1.0 / first

    def row(self) -> str:
        n = max(self.n, 1)
        return f"{100 * self.r5 / n:6.1f} {100 * self.r10 / n:6.1f} {self.mrr / n:6.3f}"

    @property
    def recall5(self) -> float:
        return 100 * self.r5 / max(self.n, 1)


def evaluate(
    index: SearchIndex, cases: Iterable[EvalCase], retriever: HybridRetriever, mode: str
) -> dict[str, Scores]:
    """Scores per half of ``cases`` retrieved in ``mode``."""
    out = {half: Scores() for half in HALVES}
    for case in cases:
        try:
            outcome = retriever.retrieve(
                index, RetrievalQuery(case.query, 10, AS_OF), use=MODES[mode]
            )
            ranked = [hit.span.span_id for hit in outcome.hits]
        except Exception:  # a query with no content words: nothing retrieved
            ranked = []
        out[case.half].add(ranked, case.gold)
    return out


def _choose_context(
    loaded: dict[str, tuple[list[IndexedSpan], list[EvalCase]]], embedder: Embedder, engine: str
) -> None:
    """Print tune-half RRF recall@5 (no gate) for every :data:`CONTEXTS` entry and the one
    with the best mean over both data sets (the smaller window, then weight, on a tie)."""
    print("\nprose context on the tune half (RRF recall@5, no gate: wice, tatqa, mean)")
    retriever = HybridRetriever(embedder, LexicalGate(0.0))
    best: tuple[tuple[int, float], float] | None = None
    for context in CONTEXTS:
        r5 = [
            evaluate(build(spans, embedder, context, engine), cases, retriever, "rrf")[
                "tune"
            ].recall5
            for spans, cases in loaded.values()
        ]
        mean = float(np.mean(r5))
        window, weight = context
        print(f"  window {window} weight {weight:3.1f}  {r5[0]:5.1f} {r5[1]:5.1f}  {mean:5.1f}")
        if best is None or mean > best[1]:
            best = (context, mean)
    assert best is not None
    print(f"chosen: window {best[0][0]}, weight {best[0][1]}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", help="the shared data directory (default ../shared/data)")
    parser.add_argument("--tune", action="store_true", help="choose the gate threshold")
    parser.add_argument(
        "--context", action="store_true", help="choose the prose context window and weight"
    )
    parser.add_argument("--limit", type=int, default=0, help="cases per data set (0: all)")
    parser.add_argument("--engine", choices=ENGINES, default="search")
    args = parser.parse_args(argv)
    try:
        return _run(args)
    finally:
        for folder in _FOLDERS:
            shutil.rmtree(folder, ignore_errors=True)


def _run(args: argparse.Namespace) -> int:
    root = data_dir(args.data)
    if root is None:
        print("shared data not found; nothing to evaluate")
        return 0
    embedder = Embedder()
    sets = {}
    loaded = {}
    for name, load in (("wice", wice), ("tatqa", tatqa)):
        started = time.perf_counter()
        spans, cases = load(root)
        if args.limit:
            cases = cases[: args.limit]
        index = build(spans, embedder, engine=args.engine)
        took = time.perf_counter() - started
        counts = {h: sum(c.half == h for c in cases) for h in HALVES}
        print(f"{name}: {len(spans)} spans, {len(cases)} queries {counts}, built in {took:.1f}s")
        sets[name] = (index, cases)
        loaded[name] = (spans, cases)
    if args.context:
        _choose_context(loaded, embedder, args.engine)
    threshold = GATE_THRESHOLD
    if args.tune:
        print("\ngate threshold on the tune half (RRF recall@5: wice, tatqa, mean)")
        best: tuple[float, float] | None = None
        for t in THRESHOLDS:
            retriever = HybridRetriever(embedder, LexicalGate(t))
            r5 = [evaluate(*sets[n], retriever, "rrf")["tune"].recall5 for n in sets]
            mean = float(np.mean(r5))
            print(f"  {t:4.2f}  {r5[0]:5.1f} {r5[1]:5.1f}  {mean:5.1f}")
            if best is None or mean >= best[1]:
                best = (t, mean)
        assert best is not None
        threshold = best[0]
        print(f"chosen threshold: {threshold}")
    print(f"\ngate threshold {threshold}; columns: recall@5 recall@10 MRR")
    for name, (index, cases) in sets.items():
        for gated in (False, True):
            retriever = HybridRetriever(embedder, LexicalGate(threshold if gated else 0.0))
            for mode in MODES:
                scores = evaluate(index, cases, retriever, mode)
                label = f"{name:5} {mode:5} {'gate' if gated else '    '}"
                print(f"{label}  " + "   ".join(f"{h}: {scores[h].row()}" for h in HALVES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
