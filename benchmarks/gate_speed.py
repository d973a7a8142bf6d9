"""Time per ``judge`` call for a claim with three bindings, in process.

Usage: python -m benchmarks.gate_speed [--calls N]

Prints the median and p99 of single calls for a factual claim (three sentence spans, one
quote) and a computational claim (two table cells and a sentence), first with the spans already
seen (the gate caches what it reads from a span text, as a service would hold it), then with
every span read afresh. Every call judges a claim text the gate has not seen before: the words
of the claim are the same, the whitespace between them differs (a different string, the same
verdict), so nothing the gate might remember about a claim text can help.
Target: median <= 100 us.

The gate runs compiled where the install compiled it (``setup.py``; docs/gate.md, "The compiled
gate"), and from source with ``PROVLEDGER_GATE_PURE=1``; the first line says which.

As a baseline in the same process it first times a fixed piece of plain Python (sorting 1,000
words and joining them, what any text check does many times over), so that runs on machines
or days of different speed can be compared as ratios.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import replace

from ledger.gate import COMPILED, Binding, ClaimDraft, ClaimType, Role, SpanFacts, judge
from ledger.gate.warm import forget_spans


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
    forget_spans()


def fresh_text(text: str, n: int) -> str:
    """``text`` with one to four spaces in each gap, as the base-4 digits of ``n`` say: a
    different string for each ``n`` below ``4 ** gaps``."""
    words = text.split(" ")
    out = words[0]
    for i, word in enumerate(words[1:]):
        out += " " * (1 + n // 4**i % 4) + word
    return out


def _time(
    case: tuple[ClaimDraft, dict[str, SpanFacts]], calls: int, cold: bool
) -> tuple[float, float, str]:
    claim, spans = case
    status = judge(claim, spans).status
    variants = [replace(claim, text=fresh_text(claim.text, n)) for n in range(calls + 200)]
    assert len({v.text for v in variants}) == len(variants), "claim texts must all differ"
    for variant in variants[:200]:
        assert judge(variant, spans).status is status, variant.text
    samples = []
    for variant in variants[200:]:
        if cold:
            clear_span_caches()
        start = time.perf_counter_ns()
        judge(variant, spans)
        samples.append(time.perf_counter_ns() - start)
    samples.sort()
    return statistics.median(samples) / 1000, samples[int(len(samples) * 0.99)] / 1000, status.value


_WORDS = [f"w{(n * 7919) % 1000:03d}" for n in range(1000)]


def _baseline(calls: int) -> float:
    """Median microseconds of the fixed reference work."""
    samples = []
    for _ in range(calls):
        started = time.perf_counter_ns()
        " ".join(sorted(_WORDS))
        samples.append(time.perf_counter_ns() - started)
    return statistics.median(samples) / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description="time per judge call")
    parser.add_argument("--calls", type=int, default=5000)
    args = parser.parse_args()
    reference = _baseline(args.calls)
    print("gate: " + ("compiled (mypyc)" if COMPILED else "from source"))
    print(f"baseline: sort and join 1,000 words, median {reference:.1f} us")
    for cold in (False, True):
        for name, case in (("factual", FACTUAL), ("computational", COMPUTATIONAL)):
            median, p99, status = _time(case, args.calls, cold)
            spans = "spans read afresh" if cold else "spans seen before"
            print(
                f"{name:14} {spans:18} status={status:9} median {median:7.1f} us "
                f"({median / reference:4.1f}x the baseline)  p99 {p99:7.1f} us"
            )


if __name__ == "__main__":
    main()
