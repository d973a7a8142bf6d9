"""Sentence segmentation throughput on ordinary English prose with the hard cases mixed in.

Usage: python -m benchmarks.segmentation [--docs N] [--repeat R] [--candidates]

Builds N documents in-process (about 40 sentences each, in paragraphs with wrapped lines, a
heading and a short list; roughly one sentence in five is a hard case: titles, initials,
money, decimals, section references, quotations, ellipses). Prints sentences/s for
``split_sentences`` over whole documents, then for the full pipeline (``normalise`` +
``build_spans``). ``--candidates`` also times the other segmenters considered, raw, on the same
paragraphs (each only if installed): pysbd and syntok.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from ledger.text.normalize import normalise
from ledger.text.segment import split_sentences
from ledger.text.spans import build_spans

ORDINARY = [
    "The committee reviewed the annual report in detail.",
    "Several members raised concerns about the budget for next year.",
    "The chair promised a written response within two weeks.",
    "Staff will circulate the minutes on Monday morning.",
    "Questions should be sent to the secretary before the deadline.",
    "Demand for the new service grew steadily over the summer months.",
    "The warehouse in Leeds handled most of the returned orders.",
    "Customers who received damaged goods were offered a full refund.",
    "Our auditors found no material weaknesses in the controls.",
    "Why did the forecast miss by such a wide margin?",
    "The team expects the migration to finish before the holidays",
    "Prices rose in every region except the north-east.",
]
HARD = [
    "Dr. Smith met Mr. Jones at the Leeds office on Jan. 5.",
    "The company earned $4.5 million in 2023, up 2.2% on the year.",
    "See section 4.2.1(b) of the agreement for the full terms.",
    "J. R. R. Tolkien's estate licensed the rights to Acme Ltd. in the U.K. last year.",
    'He said "Stop. Now." and left the room.',
    "She asked, \u201cIs the report ready?\u201d",
    "The tools, e.g. drills and saws, are stored in Bldg. 4 with the rest of the kit.",
    "Version 3.14.2 fixed the rounding error reported in Fig. 3.",
    "Sales fell... then recovered sharply in the fourth quarter.",
    "Under \u00a7 12.3 the seller, Foo Inc., must refund within 30 days.",
]


def make_document(rng: random.Random) -> str:
    """Return one document of about 40 sentences as Markdown."""
    paragraphs = [f"# Report {rng.randint(1, 999)}"]
    for _ in range(6):
        sentences = [
            rng.choice(HARD) if rng.random() < 0.2 else rng.choice(ORDINARY) for _ in range(6)
        ]
        words = " ".join(sentences).split(" ")
        lines = [" ".join(words[i : i + 12]) for i in range(0, len(words), 12)]
        paragraphs.append("\n".join(lines))
    paragraphs.append("- first action item\n- second action item\n1. a numbered step")
    return "\n\n".join(paragraphs)


def _rate(documents: list[str], count: Callable[[str], int], repeat: int) -> float:
    best = 0.0
    for _ in range(repeat):
        started = time.perf_counter()
        sentences = sum(count(document) for document in documents)
        best = max(best, sentences / (time.perf_counter() - started))
    return best


def _candidates(documents: list[str], repeat: int) -> None:
    paragraphs = [p for document in documents for p in document.split("\n\n")]
    try:
        import pysbd

        segmenter = pysbd.Segmenter(language="en", clean=False, char_span=True)
        rate = _rate(paragraphs[:300], lambda p: len(segmenter.segment(p)), 1)
        print(f"pysbd (raw):              {rate:>10,.0f} sentences/s")
    except ImportError:
        print("pysbd: not installed")
    try:
        from syntok import segmenter as syntok

        rate = _rate(paragraphs[:1500], lambda p: sum(len(list(q)) for q in syntok.analyze(p)), 1)
        print(f"syntok (raw):             {rate:>10,.0f} sentences/s")
    except ImportError:
        print("syntok: not installed")


def main() -> None:
    """Build the corpus and print the rates."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--candidates", action="store_true")
    args = parser.parse_args()
    rng = random.Random(20240601)
    markdown = [make_document(rng) for _ in range(args.docs)]
    frozen = [normalise(document, "text/markdown") for document in markdown]
    texts = [text for text, _ in frozen]
    total = sum(len(split_sentences(text)) for text in texts)
    print(
        f"corpus: {args.docs} documents, {total} sentences ({total / args.docs:.1f} per document)"
    )
    rate = _rate(texts, lambda text: len(split_sentences(text)), args.repeat)
    print(f"split_sentences:          {rate:>10,.0f} sentences/s")
    pipeline = _rate(
        markdown,
        lambda document: len(build_spans("src", "v", *normalise(document, "text/markdown"))),
        args.repeat,
    )
    print(f"normalise + build_spans:  {pipeline:>10,.0f} spans/s")
    if args.candidates:
        _candidates(texts, 1)


if __name__ == "__main__":
    main()
