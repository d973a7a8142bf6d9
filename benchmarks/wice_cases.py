"""WiCE dev claims as evaluation cases: supported claims citing their gold sentences (and,
negated, the same), not-supported claims citing the article's best BM25 sentence.

The rows are those of WiCE's claim-level dev split; each case carries the half of its
Wikipedia article (:func:`benchmarks.eval_cases.half_of`).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from benchmarks.eval_cases import Case, half_of, make_case
from benchmarks.gate_mutations import negate
from ledger.gate.lexicon.words import content_stems


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


def wice_document(row: dict[str, object]) -> str:
    """The WiCE document key of a row: the Wikipedia article its claim comes from."""
    meta = row.get("meta") or {}
    return str(meta.get("claim_title") or meta.get("id") or row["claim"])  # type: ignore[attr-defined]


def wice_cases(root: Path) -> Iterator[Case]:
    """WiCE supported claims with gold sentences (and with a negation inserted);
    not-supported claims with the BM25 best sentence."""
    for row in wice_rows(root):
        evidence = [str(s) for s in row["evidence"]]  # type: ignore[attr-defined]
        claim = str(row["claim"])
        half = half_of(wice_document(row))
        if row["label"] == "supported":
            gold = [evidence[i] for i in row["supporting_sentences"][0]]  # type: ignore[index]
            yield replace(make_case("wice_supported", claim, gold), half=half)
            negated = negate(claim)
            if negated is not None:
                yield replace(make_case("wice_negated", negated, gold), half=half)
        elif row["label"] == "not_supported":
            best = [evidence[bm25_best(claim, evidence)]]
            yield replace(make_case("wice_not_supported", claim, best), half=half)
