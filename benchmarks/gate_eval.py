"""Evaluation of the commit gate on real citation data (WiCE dev, TAT-QA dev, SummEdits).

Usage: python -m benchmarks.gate_eval [--data DIR] [--thresholds]

Reads ``../shared/data`` relative to the repository (or ``PROVLEDGER_SHARED_DATA``) and exits
with status 2 when it is missing. Categories, each a list of (claim, span facts):

1. ``verbatim``: sentences of WiCE gold evidence and TAT-QA paragraphs (five words or more)
   quoted whole or in part by a claim that repeats the sentence -> must be verified (100%);
2. ``summedits_negation``, ``summedits_antonym``: the summary sentence a negation or antonym
   edit changed, bound to the document sentence that best matches the original sentence, and
   ``tatqa_sign_flip``, ``tatqa_x10``, ``tatqa_plus3pct``: perturbed arithmetic answers citing
   their gold cells -> must never be verified (target 0%, at most 1%);
3. ``tatqa_arithmetic``: arithmetic answers turned into claims citing their gold cells and
   sentences -> at least 90% verified;
4. ``wice_supported``: supported claims citing their first gold sentence set (reported);
5. ``wice_not_supported``: not-supported claims citing the article's best BM25 sentence
   -> at most 10% verified.

Also reported: the unedited summary sentences (``summedits_original``), as a control.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from benchmarks.eval_cases import Case, data_dir, make_case, sentences_of, span
from benchmarks.tatqa_cases import tatqa, tatqa_cases
from ledger.gate import (
    Binding,
    ClaimDraft,
    GateConfig,
    Status,
    judge,
)
from ledger.gate._words import content_stems
from ledger.gate.support import support_score

MUST_VERIFY = ("verbatim",)
MUST_NOT_VERIFY = (
    "summedits_negation",
    "summedits_antonym",
    "tatqa_sign_flip",
    "tatqa_x10",
    "tatqa_plus3pct",
)


# -- WiCE ------------------------------------------------------------------------------------


def wice_rows(root: Path) -> list[dict[str, object]]:
    """The WiCE claim-level dev rows."""
    path = root / "wice" / "entailment_retrieval" / "claim" / "dev.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def bm25_best(claim: str, sentences: list[str], k1: float = 1.5, b: float = 0.75) -> int:
    """Index of the sentence with the highest BM25 score for the claim's content words."""
    docs = [content_stems(s) for s in sentences]
    lengths = [max(len(d), 1) for d in docs]
    average = sum(lengths) / max(len(lengths), 1)
    query = content_stems(claim)
    df = Counter(w for d in docs for w in d)
    n = len(docs)
    best, best_score = 0, -1.0
    for i, doc in enumerate(docs):
        score = 0.0
        for word in query & doc:
            idf = math.log(1 + (n - df[word] + 0.5) / (df[word] + 0.5))
            score += idf * (k1 + 1) / (1 + k1 * (1 - b + b * lengths[i] / average))
        if score > best_score:
            best, best_score = i, score
    return best


def wice_cases(root: Path) -> Iterator[Case]:
    """WiCE supported claims with gold sentences; not-supported claims with the BM25 best."""
    for row in wice_rows(root):
        evidence = [str(s) for s in row["evidence"]]  # type: ignore[attr-defined]
        claim = str(row["claim"])
        if row["label"] == "supported":
            gold = row["supporting_sentences"][0]  # type: ignore[index]
            yield make_case("wice_supported", claim, [evidence[i] for i in gold])
        elif row["label"] == "not_supported":
            yield make_case("wice_not_supported", claim, [evidence[bm25_best(claim, evidence)]])


def verbatim_cases(root: Path, limit: int = 600) -> Iterator[Case]:
    """Sentences of WiCE gold evidence and TAT-QA paragraphs quoted by a claim repeating them."""
    texts: list[str] = []
    for row in wice_rows(root):
        evidence = row["evidence"]
        for group in row["supporting_sentences"]:  # type: ignore[attr-defined]
            texts += [str(evidence[i]) for i in group]  # type: ignore[index]
    for context in tatqa(root):
        for paragraph in context["paragraphs"]:
            texts += sentences_of(paragraph["text"])
    seen: set[str] = set()
    for n, text in enumerate(t for t in texts if len(t.split()) >= 5):
        if text in seen or len(seen) >= limit:
            continue
        seen.add(text)
        words = text.split()
        quote = text if n % 2 else " ".join(words[len(words) // 4 : max(len(words) * 3 // 4, 3)])
        facts = span("s0", text)
        claim = ClaimDraft(text.strip(), bindings=(Binding("s0", quote=quote),))
        yield Case("verbatim", claim, {"s0": facts})


# -- SummEdits -------------------------------------------------------------------------------


def summedits(root: Path) -> Iterator[dict[str, object]]:
    """Items of the four SummEdits domains."""
    for path in sorted((root / "summedits").glob("summedits_*.json")):
        yield from json.loads(path.read_text())


def _best_sentence(text: str, candidates: list[str]) -> str:
    scores = [support_score(text, [c])[0] for c in candidates]
    return candidates[max(range(len(candidates)), key=scores.__getitem__)]


def summedits_cases(root: Path) -> Iterator[Case]:
    """Edited summary sentences (negation, antonym) and their unedited originals."""
    for item in summedits(root):
        kinds = set(item.get("edit_types") or ())  # type: ignore[call-overload]
        category = (
            "summedits_negation"
            if "negation_insertion_removal" in kinds
            else "summedits_antonym"
            if "antonym_swap" in kinds
            else None
        )
        if category is None:
            continue
        edited = sentences_of(str(item["summary"]))
        original = sentences_of(str(item["original_summary"]))
        changed = [s for s in edited if s not in original]
        doc = sentences_of(str(item["doc"]))
        if len(changed) != 1 or not doc:
            continue
        before = _best_sentence(changed[0], original)
        source = _best_sentence(before, doc)
        yield make_case(category, changed[0], [source])
        yield make_case("summedits_original", before, [source])


def all_cases(root: Path) -> list[Case]:
    """Every evaluation case, in a fixed order."""
    cases = list(verbatim_cases(root))
    cases += summedits_cases(root)
    cases += tatqa_cases(root)
    cases += wice_cases(root)
    return cases


# -- report ----------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--data", default=None)
    parser.add_argument("--thresholds", action="store_true", help="verified share by threshold")
    args = parser.parse_args()
    root = data_dir(args.data)
    if root is None:
        print("shared data not found (../shared/data or PROVLEDGER_SHARED_DATA)", file=sys.stderr)
        return 2
    cases = all_cases(root)
    unbuilt = sum(1 for c in cases if c.category == "tatqa_unbuilt")
    cases = [c for c in cases if c.category != "tatqa_unbuilt"]
    config = GateConfig()
    statuses: dict[str, Counter[Status]] = defaultdict(Counter)
    per_check: dict[str, Counter[tuple[str, str, str]]] = defaultdict(Counter)
    for case in cases:
        verdict = judge(case.claim, case.spans, config)
        statuses[case.category][verdict.status] += 1
        for check in verdict.checks:
            per_check[case.category][(check.check, check.outcome.value, check.reason)] += 1
    print(f"support_threshold={config.support_threshold}; TAT-QA questions not built: {unbuilt}")
    print(f"\n{'category':24} {'n':>5} {'verified':>9} {'unverified':>11} {'rejected':>9}")
    for category, counts in statuses.items():
        n = sum(counts.values())
        row = [counts[s] / n * 100 for s in Status]
        print(f"{category:24} {n:5d} {row[0]:8.1f}% {row[1]:10.1f}% {row[2]:8.1f}%")
    print("\nper check: outcome/reason counts by category")
    for category, counts in per_check.items():
        print(f"\n[{category}]")
        for (check, outcome, reason), n in sorted(counts.items()):
            print(f"  {check:12} {outcome:5} {reason:22} {n:5d}")
    if args.thresholds:
        print("\nverified share by support threshold")
        for threshold in (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0):
            tuned = replace(config, support_threshold=threshold)
            shares = []
            for category in statuses:
                subset = [c for c in cases if c.category == category]
                hits = sum(judge(c.claim, c.spans, tuned).status is Status.VERIFIED for c in subset)
                shares.append(f"{category}={hits / len(subset) * 100:.1f}%")
            print(f"  {threshold:.2f}: " + " ".join(shares))
    return 0


if __name__ == "__main__":
    sys.exit(main())
