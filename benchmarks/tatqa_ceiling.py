"""What keeps TAT-QA arithmetic claims out of ``verified``, and what each remedy would cost.

Usage: python -m benchmarks.tatqa_ceiling [--data DIR]

Reads the TAT-QA dev cases of :mod:`benchmarks.tatqa_cases` (declarative form; the question
form gives the same figures) and prints, for the tuning and the check half side by side:

1. every arithmetic claim by the first thing that stops it: verified; the computation not
   reproduced, mismatched or sign-ambiguous; recomputed, but the anchors or polarity check
   failed; recomputed, but a word of the claim is in no cited span (support);
2. the sign convention: the claims whose result holds under one reading of the bracketed
   figures only (``sign_ambiguous``), judged again with the cited figures rewritten as the
   accounting convention reads them (``(1,647)`` -> ``-1,647``) and as magnitudes (``1,647``),
   with the sign flips of the same answers judged the same way: what fixing either convention
   would gain, and how many sign flips it would let through;
3. the support threshold: arithmetic and swapped-line claims verified when a claim may have
   fewer than all of its words in its cited spans.

Exits with status 2 when the shared data is missing.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from dataclasses import replace

from benchmarks.eval_cases import HALVES, Case, data_dir
from benchmarks.tatqa_cases import tatqa_cases
from ledger.gate import GateConfig, SpanFacts, Status, judge

_BRACKETED = re.compile(r"\(\s*([$\u20ac\u00a3]?)\s*(\d[\d,]*(?:\.\d+)?)\s*\)")


def stopped_by(case: Case, config: GateConfig) -> str:
    """The first thing that keeps a claim out of ``verified``, or ``verified``."""
    verdict = judge(case.claim, case.spans, config)
    if verdict.status is Status.VERIFIED:
        return "verified"
    results = {result.check: result for result in verdict.checks}
    computation = results["computation"]
    if computation.reason != "recomputed":
        return f"computation {computation.reason}"
    for check in ("anchors", "polarity"):
        if results[check].outcome.value == "fail":
            return f"recomputed, {check} {results[check].reason}"
    return f"recomputed, support {results['support'].reason}"


def read_as(span: SpanFacts, convention: str) -> SpanFacts:
    """A cited cell with its bracketed figure written as the convention reads it: negative
    (``accounting``) or as its magnitude (``magnitude``); only the value, not a label's
    footnote mark such as ``(1)``."""
    sign = "-" if convention == "accounting" else ""
    text = _BRACKETED.sub(lambda m: f"{m.group(1)}{sign}{m.group(2)}", span.text)
    envelope = span.envelope
    if envelope is not None and envelope.endswith(span.text):
        envelope = envelope[: len(envelope) - len(span.text)] + text
    return replace(span, text=text, envelope=envelope)


def _share(counts: Counter[str], key: str, n: int) -> str:
    return f"{counts[key]:4d} ({counts[key] / n * 100:5.1f}%)" if n else "   -"


def _points(count: int, group: list[Case]) -> str:
    return f"+{count / len(group) * 100:.1f} points" if group else "-"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--data", default=None)
    args = parser.parse_args()
    root = data_dir(args.data)
    if root is None:
        print("shared data not found (../shared/data or PROVLEDGER_SHARED_DATA)", file=sys.stderr)
        return 2
    config = GateConfig()
    cases = [c for c in tatqa_cases(root) if not c.category.endswith("_question")]
    arithmetic = {
        h: [c for c in cases if c.category == "tatqa_arithmetic" and c.half == h] for h in HALVES
    }
    flips = {
        h: [c for c in cases if c.category == "tatqa_sign_flip" and c.half == h] for h in HALVES
    }

    print("1. TAT-QA arithmetic claims by what stops them (tuning | check half)")
    stops = {h: Counter(stopped_by(c, config) for c in arithmetic[h]) for h in HALVES}
    for key in sorted(set(stops["tune"]) | set(stops["check"]), key=lambda k: -stops["tune"][k]):
        row = " | ".join(_share(stops[h], key, len(arithmetic[h])) for h in HALVES)
        print(f"  {key:48} {row}")

    print("\n2. sign-ambiguous results read under one convention (tuning | check half)")
    for convention in ("accounting", "magnitude"):
        gained: Counter[str] = Counter()
        flipped: Counter[str] = Counter()
        ambiguous: Counter[str] = Counter()
        flips_ambiguous: Counter[str] = Counter()
        for h in HALVES:
            for group, counter, total in (
                (arithmetic, gained, ambiguous),
                (flips, flipped, flips_ambiguous),
            ):
                for case in group[h]:
                    if stopped_by(case, config) != "computation sign_ambiguous":
                        continue
                    total[h] += 1
                    spans = {k: read_as(s, convention) for k, s in case.spans.items()}
                    counter[h] += judge(case.claim, spans, config).status is Status.VERIFIED
        added = [
            f"{gained[h]} of {ambiguous[h]} ({_points(gained[h], arithmetic[h])})" for h in HALVES
        ]
        let = [
            f"{flipped[h]} of {flips_ambiguous[h]} ({_points(flipped[h], flips[h])})"
            for h in HALVES
        ]
        print(
            f"  {convention:10} arithmetic verified {' | '.join(added)}; "
            f"sign flips verified {' | '.join(let)}"
        )

    print("\n3. verified share by support threshold (tuning | check half)")
    swaps = {
        h: [c for c in cases if c.category == "tatqa_line_swap" and c.half == h] for h in HALVES
    }
    for threshold in (1.0, 0.75, 0.5, 0.0):
        tuned = replace(config, support_threshold=threshold)
        shares = []
        for name, group in (("arithmetic", arithmetic), ("line swap", swaps)):
            cells = []
            for h in HALVES:
                hits = sum(
                    judge(c.claim, c.spans, tuned).status is Status.VERIFIED for c in group[h]
                )
                cells.append(f"{hits / len(group[h]) * 100:5.1f}%")
            shares.append(f"{name} {' | '.join(cells)}")
        print(f"  {threshold:.2f}: " + "; ".join(shares))
    return 0


if __name__ == "__main__":
    sys.exit(main())
