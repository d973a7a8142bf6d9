"""SummEdits summaries as evaluation cases: each edited summary sentence bound to the document
sentence that best matches its original, and each edited summary judged against its seed.

Items of SummEdits' ``test`` split are never read; each case carries the half of its document
(:func:`benchmarks.eval_cases.half_of`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from benchmarks.eval_cases import Case, half_of, make_case, sentences_of
from ledger.gate.support.recall import support_score


def summedits(root: Path) -> Iterator[dict[str, object]]:
    """Items of the four SummEdits domains, less those of its ``test`` split."""
    for path in sorted((root / "summedits").glob("summedits_*.json")):
        for item in json.loads(path.read_text()):
            if item.get("split") != "test":
                yield item


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
        half = half_of(str(item["doc"]))
        yield replace(make_case(category, changed[0], [source]), half=half)
        yield replace(make_case("summedits_original", before, [source]), half=half)


def seed_kind(edit_types: set[str]) -> str:
    """The category of an inconsistent SummEdits item by its edit types, the most telling
    first: negation, antonym, another edit (inserted fact, roles swapped), entity swap."""
    if "negation_insertion_removal" in edit_types:
        return "seed_negation"
    if "antonym_swap" in edit_types:
        return "seed_antonym"
    if "hallucinated_fact_insertion" in edit_types:
        return "seed_other"
    return "seed_swap"


def seed_cases(root: Path) -> Iterator[Case]:
    """Each edited SummEdits summary judged against the sentences of its seed summary."""
    for item in summedits(root):
        summary = str(item["summary"]).strip()
        original = str(item["original_summary"]).strip()
        if summary == original or not original:
            continue
        if item["label"] == 1:
            category = "seed_consistent"
        else:
            category = seed_kind(set(item.get("edit_types") or ()))  # type: ignore[call-overload]
        case = make_case(category, summary, sentences_of(original))
        yield replace(case, half=half_of(str(item["doc"])))
