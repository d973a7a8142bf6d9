"""Evaluation of the loss-boundary check on SummEdits (dev data): human-written edits of a
summary, read as a transformation of it.

Usage: python -m benchmarks.loss_boundary_eval [--data DIR] [--show CATEGORY]

Reads ``../shared/data`` relative to the repository (or ``PROVLEDGER_SHARED_DATA``) and exits
with status 2 when it is missing. Items of SummEdits' ``test`` split are never read. Each
edited summary is checked as the output of a transformation whose one input is the seed
summary it was edited from, with every kind of must-keep item and nothing released
(:func:`ledger.lossboundary.check_loss`). Categories:

- ``negation_removed``: a negation edit that leaves fewer negation cues than the seed had ->
  the loss of a must-keep item, to be refused every time;
- ``negation_inserted``, ``antonym_swap``, ``entity_modification``, ``hallucinated_fact``:
  the other inconsistent edits (reported: a loss boundary refuses what an output loses, and
  these mostly change or add);
- ``consistent``: rewrites the annotators found consistent with the document (reported: the
  share refused is the cost of keeping a must-keep clause's words).

Beside each share, the same run's baseline: a bag-of-words check that refuses an output
missing any digit run or negation word the input has. The report prints both and their ratio.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

from benchmarks.eval_cases import data_dir
from ledger.gate.lexicon.words import tokens
from ledger.lossboundary import InputText, MustKeep, check_loss
from ledger.lossboundary.vocabulary import NEGATIONS

DOMAINS = ("news", "podcast", "sales_call", "samsum")
_DIGITS = re.compile(r"\d+")


def _category(item: dict[str, object]) -> str:
    if str(item["label"]) == "1":
        return "consistent"
    kinds = json.loads(str(item["edit_types"]).replace("'", '"'))
    if "negation_insertion_removal" in kinds:
        before = sum(1 for t in tokens(str(item["original_summary"])) if t in NEGATIONS)
        after = sum(1 for t in tokens(str(item["summary"])) if t in NEGATIONS)
        return "negation_removed" if after < before else "negation_inserted"
    if "antonym_swap" in kinds:
        return "antonym_swap"
    if "entity_modification" in kinds:
        return "entity_modification"
    return "hallucinated_fact"


def _baseline_refuses(source: str, output: str) -> bool:
    """Refuse an output that lacks a digit run or a negation word of the input."""
    have = set(tokens(output)) | set(_DIGITS.findall(output))
    wanted = set(_DIGITS.findall(source)) | {t for t in tokens(source) if t in NEGATIONS}
    return not wanted <= have


def cases(folder: Path) -> list[tuple[str, str, str]]:
    """(category, seed summary, edited summary) of every edited item outside ``test``."""
    found = []
    for domain in DOMAINS:
        path = folder / "summedits" / f"summedits_{domain}.json"
        for item in json.loads(path.read_text("utf-8")):
            if item.get("split") == "test" or str(item["id"]).endswith("_og"):
                continue
            if item["summary"] == item["original_summary"]:
                continue
            found.append((_category(item), item["original_summary"], item["summary"]))
    return found


def main(argv: list[str] | None = None) -> int:
    """Print the refused share per category, with the baseline's."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data")
    parser.add_argument("--show", help="print the items of this category the check accepts")
    args = parser.parse_args(argv)
    folder = data_dir(args.data)
    if folder is None:
        print("shared data not found (--data, PROVLEDGER_SHARED_DATA or ../shared/data)")
        return 2
    totals: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    baseline: Counter[str] = Counter()
    kinds: dict[str, Counter[str]] = defaultdict(Counter)
    for category, seed, edited in cases(folder):
        totals[category] += 1
        report = check_loss([InputText("seed", seed)], edited, list(MustKeep))
        if not report.kept:
            refused[category] += 1
            kinds[category].update(item.kind.value for item in report.dropped)
        elif args.show == category:
            print(f"accepted: {seed!r}\n      -> {edited!r}")
        baseline[category] += _baseline_refuses(seed, edited)
    print(f"{'category':22} {'n':>5} {'refused':>8} {'baseline':>9} {'ratio':>6}  dropped kinds")
    for category in sorted(totals):
        n = totals[category]
        ours, theirs = refused[category] / n, baseline[category] / n
        ratio = f"{ours / theirs:.2f}" if theirs else "-"
        top = ", ".join(f"{k} {c}" for k, c in kinds[category].most_common(3))
        print(f"{category:22} {n:5d} {ours:8.1%} {theirs:9.1%} {ratio:>6}  {top}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
