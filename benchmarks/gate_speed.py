"""Time per ``judge`` call for a claim with three bindings, in process.

Usage: python -m benchmarks.gate_speed [--calls N]

Prints the median and p99 of single calls for a factual claim (three sentence spans, one
quote) and a computational claim (two table cells and a sentence), first with the spans already
seen (the gate caches what it reads from a span text), then with every span read afresh.
Target: median <= 100 us.
"""

from __future__ import annotations

import argparse
import statistics
import time

from ledger.gate import Binding, ClaimDraft, ClaimType, Role, SpanFacts, judge
from ledger.gate._words import span_stems
from ledger.gate.anchors import span_anchors
from ledger.gate.computation import _figures
from ledger.gate.polarity import _sentence_tokens


def _span(span_id: str, text: str, envelope: str | None = None) -> SpanFacts:
    return SpanFacts(span_id, True, True, True, False, text, envelope)


FACTUAL = (
    ClaimDraft(
        "Automotive-segment revenue declined 2.2% quarter-on-quarter in Q3 2023, and the company "
        "expects a rebound next fiscal year.",
        bindings=(
            Binding("s1", quote="automotive-segment revenue declined 2.2% quarter-on-quarter"),
            Binding("s2", Role.SECONDARY),
            Binding("s3", Role.CONTEXT),
        ),
    ),
    {
        "s1": _span(
            "s1",
            "In Q3 2023, automotive-segment revenue declined 2.2% quarter-on-quarter, though we "
            "expect a rebound next fiscal year.",
        ),
        "s2": _span(
            "s2",
            "The company expects a rebound in automotive revenue next fiscal year as new "
            "design wins ramp, according to the chief financial officer.",
        ),
        "s3": _span(
            "s3", "Data-centre revenue rose 14% over the same period, led by networking products."
        ),
    },
)
COMPUTATIONAL = (
    ClaimDraft(
        "Other sales fell by 12.6 million from 2018 to 2019.",
        type=ClaimType.COMPUTATIONAL,
        bindings=(Binding("c1"), Binding("c2"), Binding("s1", Role.SECONDARY)),
    ),
    {
        "c1": _span(
            "c1", "44.1", "Sales by contract type ($ in millions) \u2014 Other, 2019: 44.1"
        ),
        "c2": _span(
            "c2", "56.7", "Sales by contract type ($ in millions) \u2014 Other, 2018: 56.7"
        ),
        "s1": _span(
            "s1",
            "Sales included in Other contract types represent cost plus and time and material "
            "type contracts.",
        ),
    },
)


def clear_span_caches() -> None:
    """Forget every span seen so far, so that the next call pays for reading its spans."""
    span_anchors.cache_clear()
    span_stems.cache_clear()
    _sentence_tokens.cache_clear()
    _figures.cache_clear()


def _time(
    case: tuple[ClaimDraft, dict[str, SpanFacts]], calls: int, cold: bool
) -> tuple[float, float, str]:
    claim, spans = case
    status = judge(claim, spans).status.value
    for _ in range(200):
        judge(claim, spans)
    samples = []
    for _ in range(calls):
        if cold:
            clear_span_caches()
        start = time.perf_counter_ns()
        judge(claim, spans)
        samples.append(time.perf_counter_ns() - start)
    samples.sort()
    return statistics.median(samples) / 1000, samples[int(len(samples) * 0.99)] / 1000, status


def main() -> None:
    parser = argparse.ArgumentParser(description="time per judge call")
    parser.add_argument("--calls", type=int, default=5000)
    args = parser.parse_args()
    for cold in (False, True):
        for name, case in (("factual", FACTUAL), ("computational", COMPUTATIONAL)):
            median, p99, status = _time(case, args.calls, cold)
            spans = "spans read afresh" if cold else "spans seen before"
            print(
                f"{name:14} {spans:18} status={status:9} median {median:7.1f} us  p99 {p99:7.1f} us"
            )


if __name__ == "__main__":
    main()
