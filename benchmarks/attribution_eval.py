"""Evaluation of re-attribution and span location on WiCE dev (``docs/attribution.md``).

Usage: python -m benchmarks.attribution_eval [--data DIR] [--seed N] [--speed]

Reads ``../shared/data`` relative to the repository (or ``PROVLEDGER_SHARED_DATA``, or
``--data``) and exits with status 2 when WiCE is missing.

1. **Repair.** Each ``supported`` claim is bound to a random non-gold sentence of its own
   article (seeded), then :func:`ledger.attribution.find_repair` searches the article's
   sentences. Reported: repaired share, accepted repairs on a gold sentence (of all claims and
   of the repaired ones), wrong repairs, the ranker alone (top-1 / top-3 gold), and the gate's
   ceiling (claims that some single gold sentence verifies), at several support thresholds.
2. **Location.** Each ``supported`` and ``partially_supported`` claim becomes the answer
   ``"<claim> [1]"`` whose chunk ``1`` is its whole article; :func:`ledger.attribution.locate`
   picks a sentence. Precision: located sentences that are gold; recall: claims located on a
   gold sentence; by threshold (at the default confidence) and by confidence (at the default
   threshold), for all of them and for the ``supported`` ones alone.

``--speed`` times the ranker (index build plus one query) on pools of 10, 100 and 1,000 WiCE
sentences, and times ``bm25s`` and ``rank_bm25`` on the same token lists when installed.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from ledger.attribution import (
    DEFAULT_CONFIDENCE,
    DEFAULT_THRESHOLD,
    MAX_ATTEMPTS,
    Bm25Ranker,
    Candidate,
    Chunk,
    _words,
    find_repair,
    locate,
)
from ledger.attribution.ranker import _document_terms
from ledger.gate import Binding, ClaimDraft, GateConfig, SpanFacts, Status, judge

REPO = Path(__file__).resolve().parents[1]
SUPPORT_THRESHOLDS = (1.0, 0.9, 0.75, 0.5)
LOCATE_THRESHOLDS = (0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6)
LOCATE_CONFIDENCES = (0.0, 0.5, 0.7, 0.8, 0.85, 0.9, 0.95)
POOL_SIZES = (10, 100, 1000)


@dataclass(frozen=True)
class Article:
    """One WiCE claim with its cited article's sentences and the gold sentence ids."""

    claim: str
    label: str
    sentences: tuple[str, ...]
    gold: frozenset[int]


def data_dir(explicit: str | None = None) -> Path | None:
    """The shared data directory, or ``None`` when WiCE is not in it."""
    for candidate in (explicit, os.environ.get("PROVLEDGER_SHARED_DATA")):
        if candidate:
            return Path(candidate) if (Path(candidate) / "wice").is_dir() else None
    default = REPO / ".." / "shared" / "data"
    return default if (default / "wice").is_dir() else None


def wice_dev(root: Path) -> list[Article]:
    """The WiCE claim-level dev rows as articles."""
    path = root / "wice" / "entailment_retrieval" / "claim" / "dev.jsonl"
    articles = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        gold = frozenset(i for group in row["supporting_sentences"] for i in group)
        articles.append(
            Article(str(row["claim"]), str(row["label"]), tuple(map(str, row["evidence"])), gold)
        )
    return articles


def sid(index: int) -> str:
    """The span id of an article's sentence ``index``."""
    return f"s{index}"


def index_of(span_id: str) -> int:
    """The sentence index of a span id made by :func:`sid`."""
    return int(span_id[1:])


def pool_of(article: Article) -> dict[str, SpanFacts]:
    """Every sentence of the article as an existing, in-force span of the sealed pool."""
    return {
        sid(i): SpanFacts(sid(i), True, True, True, False, text)
        for i, text in enumerate(article.sentences)
    }


def share(part: int, whole: int) -> str:
    """``part / whole`` as a percentage with counts, or ``n/a``."""
    return f"{part / whole * 100:5.1f}% ({part}/{whole})" if whole else "n/a"


# -- repair -----------------------------------------------------------------------------------


def repair_eval(articles: list[Article], seed: int) -> None:
    """Run and print the repair evaluation (section 1 of the module docstring)."""
    rng = random.Random(seed)
    ranker = Bm25Ranker()
    cases: list[tuple[Article, int]] = []
    skipped = 0
    for article in articles:
        if article.label != "supported":
            continue
        non_gold = [i for i in range(len(article.sentences)) if i not in article.gold]
        if not non_gold or not article.gold:
            skipped += 1
            continue
        cases.append((article, rng.choice(non_gold)))
    n = len(cases)
    print(f"\n== Repair: {n} supported claims (skipped {skipped}), seed {seed}")
    top1 = top3 = 0
    for article, wrong in cases:
        candidates = [Candidate(sid(i), t) for i, t in enumerate(article.sentences)]
        ranked = ranker.rank(article.claim, candidates, exclude={sid(wrong)})
        top1 += bool(ranked) and index_of(ranked[0].span_id) in article.gold
        top3 += any(index_of(r.span_id) in article.gold for r in ranked[:3])
    print(f"ranker alone: top-1 gold {share(top1, n)}; top-3 gold {share(top3, n)}")
    print(
        f"\n{'support thr':>11} | {'repaired':>15} | {'gold / all':>15} | "
        f"{'gold / repaired':>15} | {'wrong / repaired':>16} | {'ceiling':>15}"
    )
    for threshold in SUPPORT_THRESHOLDS:
        config = GateConfig(support_threshold=threshold)
        repaired = on_gold = ceiling = 0
        statuses: Counter[str] = Counter()
        for article, wrong in cases:
            pool = pool_of(article)
            claim = ClaimDraft(article.claim, bindings=(Binding(sid(wrong)),))
            outcome = find_repair(claim, 0, pool, ranker, config, MAX_ATTEMPTS)
            statuses.update(a.status for a in outcome.attempts)
            if outcome.new_binding is not None:
                repaired += 1
                on_gold += index_of(outcome.new_binding.span_id) in article.gold
            ceiling += any(
                judge(ClaimDraft(article.claim, bindings=(Binding(sid(i)),)), pool, config).status
                is Status.VERIFIED
                for i in sorted(article.gold)
            )
        print(
            f"{threshold:11.2f} | {share(repaired, n):>15} | {share(on_gold, n):>15} | "
            f"{share(on_gold, repaired):>15} | {share(repaired - on_gold, repaired):>16} | "
            f"{share(ceiling, n):>15}"
        )
        print(f"{'':11}   attempt statuses: {dict(sorted(statuses.items()))}")
    print("ceiling = claims that at least one single gold sentence verifies at that threshold")
    _gate_failures(cases, ranker)


def _gate_failures(cases: list[tuple[Article, int]], ranker: Bm25Ranker) -> None:
    """Why the gate turns down gold sentences: failed checks for each claim's top gold sentence."""
    reasons: Counter[str] = Counter()
    for article, _ in cases:
        pool = pool_of(article)
        ranked = ranker.rank(
            article.claim, [Candidate(sid(i), t) for i, t in enumerate(article.sentences)]
        )
        gold = [r.span_id for r in ranked if index_of(r.span_id) in article.gold]
        best = gold[0] if gold else sid(min(article.gold))
        verdict = judge(ClaimDraft(article.claim, bindings=(Binding(best),)), pool, GateConfig())
        reasons.update(f"{c.check}:{c.reason}" for c in verdict.checks if c.outcome.value == "fail")
    print("failed checks on each claim's best-ranked gold sentence (default config):")
    for reason, count in reasons.most_common():
        print(f"  {reason:36} {count:4d}")


# -- location ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class LocateRow:
    """Location figures at one threshold and confidence, over all claims and ``supported`` ones."""

    threshold: float
    confidence: float
    located: int
    correct: int
    recalled: int
    twins: int
    ambiguous: int
    supported_located: int
    supported_correct: int
    supported_recalled: int


def locate_eval(articles: list[Article]) -> None:
    """Run and print the location evaluation (section 2 of the module docstring)."""
    subset = [a for a in articles if a.label in ("supported", "partially_supported") and a.gold]
    n = len(subset)
    n_supported = sum(a.label == "supported" for a in subset)
    print(f"\n== Location: {n} supported + partially supported claims ({n_supported} supported)")
    chunks = {
        id(a): {"1": Chunk("1", tuple(Candidate(sid(i), t) for i, t in enumerate(a.sentences)))}
        for a in subset
    }
    split = sum(len(locate(f"{a.claim} [1]", chunks[id(a)])) > 1 for a in subset)
    print(f"claims the segmenter splits into more than one sentence: {split}")
    by_threshold = [_locate_row(subset, chunks, t, DEFAULT_CONFIDENCE) for t in LOCATE_THRESHOLDS]
    by_confidence = [_locate_row(subset, chunks, DEFAULT_THRESHOLD, c) for c in LOCATE_CONFIDENCES]
    print(f"\nby threshold, confidence {DEFAULT_CONFIDENCE}:")
    _print_rows(by_threshold, n, n_supported, "threshold")
    print(f"\nby confidence, threshold {DEFAULT_THRESHOLD} (confidence 0: no ambiguity rule):")
    _print_rows(by_confidence, n, n_supported, "confidence")
    print("ambiguous: recall reaches the threshold but the posterior stays below the confidence")
    print("near-duplicate: content-term Jaccard >= 0.5 with a gold sentence (diagnostic only)")


def _locate_row(
    subset: list[Article],
    chunks: dict[int, dict[str, Chunk]],
    threshold: float,
    confidence: float,
) -> LocateRow:
    """Locate every claim of ``subset`` at ``threshold`` and ``confidence`` and count."""
    counts: Counter[str] = Counter()
    for article in subset:
        found = locate(
            f"{article.claim} [1]", chunks[id(article)], threshold, confidence=confidence
        )
        picks = [index_of(f.span_id) for f in found if f.span_id is not None]
        hits = [i in article.gold for i in picks]
        counts["ambiguous"] += sum(
            f.span_id is None and f.score is not None and f.score >= threshold for f in found
        )
        counts["twins"] += sum(_near_gold(article, i) for i in picks if i not in article.gold)
        for prefix in ("", "supported_") if article.label == "supported" else ("",):
            counts[prefix + "located"] += len(hits)
            counts[prefix + "correct"] += sum(hits)
            counts[prefix + "recalled"] += any(hits)
    return LocateRow(
        threshold,
        confidence,
        *(counts[k] for k in ("located", "correct", "recalled", "twins", "ambiguous")),
        *(counts["supported_" + k] for k in ("located", "correct", "recalled")),
    )


def _print_rows(rows: list[LocateRow], n: int, n_supported: int, varied: str) -> None:
    """One line per row; the default setting is marked."""
    print(
        f"{varied:>10} | {'located':>7} | {'precision':>16} | {'recall':>16} | "
        f"{'supported prec.':>15} | {'supported rec.':>15} | {'ambiguous':>9} | "
        f"{'wrong, near-dup.':>16}"
    )
    for row in rows:
        value = row.threshold if varied == "threshold" else row.confidence
        default = row.threshold == DEFAULT_THRESHOLD and row.confidence == DEFAULT_CONFIDENCE
        print(
            f"{value:10.2f} | {row.located:7d} | {share(row.correct, row.located):>16} | "
            f"{share(row.recalled, n):>16} | "
            f"{share(row.supported_correct, row.supported_located):>15} | "
            f"{share(row.supported_recalled, n_supported):>15} | {row.ambiguous:9d} | "
            f"{row.twins:>16}" + ("  (default)" if default else "")
        )


def _near_gold(article: Article, index: int) -> bool:
    """Whether sentence ``index`` shares at least half its content terms with a gold sentence."""
    mine = _words.term_set(article.sentences[index])
    for gold in article.gold:
        theirs = _words.term_set(article.sentences[gold])
        union = mine | theirs
        if union and len(mine & theirs) / len(union) >= 0.5:
            return True
    return False


# -- speed ------------------------------------------------------------------------------------


Run = Callable[[str, list[str], list[list[str]] | None], object]
"""A timed ranking: query, pool texts, and the pool's terms when prepared beforehand."""


def speed(articles: list[Article], seed: int) -> None:
    """Time index build plus one query on pools of WiCE sentences, cold and with terms ready."""
    sentences = [s for a in articles for s in a.sentences]
    claims = [a.claim for a in articles]
    rankers: dict[str, Run] = {"provledger-bm25": _hand}
    for name, library_run in (("bm25s", _bm25s), ("rank_bm25", _rank_bm25)):
        try:
            rankers[name] = _bind(library_run, importlib.import_module(name))
        except ImportError:
            print(f"{name}: not installed, not timed (pip install {name.replace('_', '-')})")
    rng = random.Random(seed)
    trials = {
        size: [
            (claims[t % len(claims)], rng.randrange(0, len(sentences) - size)) for t in range(40)
        ]
        for size in POOL_SIZES
    }
    for prepared in (False, True):
        what = "terms ready (cached / pre-tokenised)" if prepared else "tokenising included"
        print(f"\n== Ranker speed: median ms for index build + one query, {what}")
        print(f"{'pool':>5} | " + " | ".join(f"{name:>15}" for name in rankers))
        for size in POOL_SIZES:
            cells = []
            for name, run in rankers.items():
                times = []
                for query, start in trials[size]:
                    pool = sentences[start : start + size]
                    _clear_caches()
                    tokens = None
                    if prepared:
                        tokens = [_words.terms(t) for t in pool]
                        if name == "provledger-bm25":
                            run(query, pool, None)
                    began = time.perf_counter()
                    run(query, pool, tokens)
                    times.append(time.perf_counter() - began)
                cells.append(f"{statistics.median(times) * 1000:15.3f}")
            print(f"{size:5d} | " + " | ".join(cells))


def _clear_caches() -> None:
    """Forget cached terms so every ranker tokenises its pool afresh."""
    _document_terms.cache_clear()
    _words.term_set.cache_clear()
    _words.stem.cache_clear()


def _bind(
    run: Callable[[ModuleType, str, list[str], list[list[str]] | None], object],
    module: ModuleType,
) -> Run:
    """``run`` with its library module filled in."""
    return lambda query, pool, tokens: run(module, query, pool, tokens)


def _hand(query: str, pool: list[str], tokens: list[list[str]] | None) -> object:
    """The ledger's ranker; it tokenises itself, reading its own cache when terms are ready."""
    return Bm25Ranker().rank(query, [Candidate(sid(i), t) for i, t in enumerate(pool)])


def _bm25s(
    module: ModuleType, query: str, pool: list[str], tokens: list[list[str]] | None
) -> object:
    """``bm25s`` with Lucene's idf, on the ledger's terms."""
    retriever = module.BM25(k1=1.5, b=0.75, method="lucene")
    retriever.index(tokens or [_words.terms(t) for t in pool], show_progress=False)
    wanted = [t for t in sorted(set(_words.terms(query))) if t in retriever.vocab_dict]
    scores = retriever.get_scores(wanted).tolist() if wanted else []
    return sorted((-s, sid(i)) for i, s in enumerate(scores) if s > 0)


def _rank_bm25(
    module: ModuleType, query: str, pool: list[str], tokens: list[list[str]] | None
) -> object:
    """``rank_bm25``'s Okapi BM25 on the ledger's terms."""
    index = module.BM25Okapi(tokens or [_words.terms(t) for t in pool], k1=1.5, b=0.75)
    scores = index.get_scores(sorted(set(_words.terms(query)))).tolist()
    return sorted((-s, sid(i)) for i, s in enumerate(scores) if s > 0)


def main() -> int:
    """Run the evaluation; 2 when the data is missing."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--data", help="shared data directory (holding wice/)")
    parser.add_argument("--seed", type=int, default=20231201, help="seed of the wrong bindings")
    parser.add_argument("--speed", action="store_true", help="also time the ranker")
    args = parser.parse_args()
    root = data_dir(args.data)
    if root is None:
        print("WiCE not found (--data, PROVLEDGER_SHARED_DATA or ../shared/data)", file=sys.stderr)
        return 2
    articles = wice_dev(root)
    repair_eval(articles, args.seed)
    locate_eval(articles)
    if args.speed:
        speed(articles, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
