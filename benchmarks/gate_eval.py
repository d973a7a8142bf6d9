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
import os
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from ledger.gate import (
    Binding,
    ClaimDraft,
    ClaimType,
    GateConfig,
    SpanFacts,
    Status,
    judge,
)
from ledger.gate._numbers import numbers
from ledger.gate._words import content_stems
from ledger.gate.support import support_score
from ledger.text.segment import split_sentences

REPO = Path(__file__).resolve().parents[1]
MUST_VERIFY = ("verbatim",)
MUST_NOT_VERIFY = (
    "summedits_negation",
    "summedits_antonym",
    "tatqa_sign_flip",
    "tatqa_x10",
    "tatqa_plus3pct",
)


@dataclass(frozen=True)
class Case:
    """One claim with the facts about the spans it cites."""

    category: str
    claim: ClaimDraft
    spans: dict[str, SpanFacts]


def data_dir(explicit: str | None = None) -> Path | None:
    """The shared data directory, or ``None`` when it is absent."""
    for candidate in (explicit, os.environ.get("PROVLEDGER_SHARED_DATA")):
        if candidate:
            return Path(candidate) if Path(candidate).is_dir() else None
    default = REPO / ".." / "shared" / "data"
    return default if default.is_dir() else None


def span(span_id: str, text: str, envelope: str | None = None) -> SpanFacts:
    """Facts of a span that exists, is in the pool and in force."""
    return SpanFacts(span_id, True, True, True, False, text, envelope)


def sentences_of(text: str) -> list[str]:
    """Sentences of ``text`` by the ledger's own segmenter."""
    return [text[s:e] for s, e in split_sentences(text)]


def _case(category: str, text: str, texts: list[str], **claim: object) -> Case:
    spans = {f"s{i}": span(f"s{i}", t) for i, t in enumerate(texts)}
    bindings = tuple(Binding(key) for key in spans)
    return Case(category, ClaimDraft(text, bindings=bindings, **claim), spans)  # type: ignore[arg-type]


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
            yield _case("wice_supported", claim, [evidence[i] for i in gold])
        elif row["label"] == "not_supported":
            yield _case("wice_not_supported", claim, [evidence[bm25_best(claim, evidence)]])


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
        yield _case(category, changed[0], [source])
        yield _case("summedits_original", before, [source])


# -- TAT-QA ----------------------------------------------------------------------------------


def tatqa(root: Path) -> list[dict[str, object]]:
    """TAT-QA dev contexts."""
    return json.loads((root / "tatqa" / "tatqa_dataset_dev.json").read_text())  # type: ignore[no-any-return]


_QUESTION = re.compile(
    r"^(?P<pre>.*?)\b(?:what|how much|how many)\s+(?:is|was|are|were|did|does|do)?\s*(?:the\s+)?"
    r"(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)


_FIGURE = re.compile(r"\s*\(?\s*[-$€£]?\s*\d[\d,]*(?<!,)(?:\.\d+)?\s*%?\s*\)?\s*")
_EMPTY_VALUE = re.compile(
    r"\s*(?:none|nil|n/?a|[-\u2013\u2014]|\$\s*[-\u2013\u2014])\s*", re.IGNORECASE
)
"""A value cell that states no figure (``None``, ``N/A``, ``—``): a value, not a header."""
_CAPTION = re.compile(
    r"\bfollowing\b|\b(?:table|summari[sz]ed|set\s+forth|shown|presented|provided|detailed|"
    r"listed|reconciled)\s+below\b|\bbelow\s*:|\bas\s+follows\b|:\s*$",
    re.IGNORECASE,
)
"""A paragraph sentence that introduces a table (``The following table presents ...``,
``... were as follows:``): the table's caption."""


def _number(text: str) -> float | None:
    found = numbers(text)
    return abs(found[0].mantissa) if found else None


def claim_sentence(question: str, answer: str) -> str:
    """A declarative claim from a TAT-QA question and its formatted answer."""
    q = question.strip().rstrip("?").strip()
    match = _QUESTION.match(q)
    body = f"{match['pre']}the {match['rest']}" if match else q
    return f"{body[0].upper()}{body[1:]} is {answer}."


def _format(value: float, scale: str, decimals: int) -> str:
    text = f"{value:,.{decimals}f}"
    if scale == "percent":
        return f"{text}%"
    return f"{text} {scale}" if scale else text


def _decimals(value: float) -> int:
    text = repr(float(value))
    return 0 if text.endswith(".0") else len(text.split(".")[1])


_SPACED_DIGITS = re.compile(r"\b\d(?: \d){3}\b")
_AVERAGE_DIVISOR = re.compile(r"\)\s*/\s*(\d+)\s*$")
_MINUS_ONE = re.compile(r"/[^/]*-\s*1\s*$")
_CHANGE_OVER_BASE = re.compile(r"^\s*[(\[][^/]*[)\]]\s*/\s*\(?[^/]*$")
_HUNDRED = re.compile(r"[*x\u00d7/]\s*100\b|\b100\s*[*x\u00d7]")


def _clean_cell(cell: str) -> str:
    """A cell as a table extractor would give it: trimmed, ``2 0 1 8`` read as ``2018``."""
    return _SPACED_DIGITS.sub(lambda m: m.group(0).replace(" ", ""), cell.strip())


def _column_headers(rows: list[list[str]], width: int) -> list[str]:
    """Each value column's header: its own header cells, plus headers spanning it.

    A header row with a single label over the value columns (``Years Ended December 31,``)
    spans all of them; a row with several labels and gaps (``Domestic``, ``International``)
    spans each label over the empty columns to its right, as merged cells do.
    """
    parts: list[list[str]] = [[] for _ in range(width)]
    for row in rows:
        labels = [(c, row[c]) for c in range(1, width) if row[c]]
        if len(labels) == 1 and width > 2:
            for c in range(1, width):
                parts[c].append(labels[0][1])
            continue
        current = ""
        for c in range(1, width):
            current = row[c] or current
            if current:
                parts[c].append(current)
    return [" ".join(p) for p in parts]


def _header_rows(rows: list[list[str]]) -> int:
    """How many leading rows are headers: rows before the first row that writes a figure (a
    year is a header) or states an empty value (``None``, ``N/A``, ``—``). A row with only a
    column-0 label after a row of column labels opens a section, so it ends the header."""
    labelled = False
    for index, row in enumerate(rows):
        values = [c for c in row[1:] if c]
        if any(
            (_FIGURE.fullmatch(c) and not re.fullmatch(r"\d{4}", c)) or _EMPTY_VALUE.fullmatch(c)
            for c in values
        ):
            return index
        if labelled and row[0] and not values:
            return index
        labelled = labelled or bool(values)
    return len(rows)


def caption(table: list[list[str]], sentences: list[str]) -> str | None:
    """The paragraph sentence that introduces the table (``The following table presents the
    assets and liabilities of IMFT:``), as a report's reader sees its caption: of the sentences
    that introduce a table, the one sharing most words with the table's labels (the first on a
    tie); ``None`` when no sentence introduces one."""
    labels = content_stems(" ".join(" ".join(row) for row in table))
    found = [s.strip() for s in sentences if _CAPTION.search(s)]
    if not found:
        return None
    return max(found, key=lambda s: len(content_stems(s) & labels))


def _table_spans(table: list[list[str]], title: str | None = None) -> list[SpanFacts]:
    """Cells of a TAT-QA table as citeable spans with envelopes, as the ledger renders them.

    TAT-QA tables have no title: the ``title`` given (the table's caption) and the column-0
    labels of the header rows (``($ in millions)``, ``Years Ended December 31,``) stand in for
    it. A row with a label and no values opens a section whose label prefixes the rows below it
    (``Revenue: Product``).
    """
    rows = [[_clean_cell(c) for c in row] for row in table]
    width = max((len(r) for r in rows), default=0)
    rows = [r + [""] * (width - len(r)) for r in rows]
    header_rows = _header_rows(rows)
    headers = _column_headers(rows[:header_rows], width)
    notes = [r[0] for r in rows[:header_rows] if r[0]]
    title = " ".join([title, *notes] if title else notes) or "Table"
    out = []
    section = ""
    for r, row in enumerate(rows[header_rows:], start=header_rows):
        if row[0] and not any(row[1:]):
            section = row[0].rstrip(":")
            continue
        label = f"{section}: {row[0]}" if section and row[0] else row[0]
        for c, value in enumerate(row[1:], start=1):
            if not value:
                continue
            envelope = f"{title} \u2014 {label}, {headers[c]}: {value}"
            out.append(span(f"t{r}.{c}", value, envelope))
    return out


def _operand_values(derivation: str) -> list[float]:
    """The figures a derivation reads from the document, without its arithmetic constants.

    ``(a + b) / 2`` divides by the count of its terms, ``x 100`` turns a ratio into a
    percentage and the ``- 1`` of ``a / b - 1`` turns it into a change; none of these is
    evidence anyone would cite. The base of a percent change, ``(a - b) / b``, is one figure
    read twice, so it is cited once.
    """
    values = [abs(a.mantissa) for a in numbers(derivation)]
    divisor = _AVERAGE_DIVISOR.search(derivation)
    if divisor and len(values) > 1 and float(divisor.group(1)) == len(values) - 1:
        values.pop()
    if _HUNDRED.search(derivation) and 100.0 in values:
        values.remove(100.0)
    if _MINUS_ONE.search(derivation) and values and values[-1] == 1.0:
        values.pop()
    if _CHANGE_OVER_BASE.search(derivation) and len(values) == 3 and values[1] == values[2]:
        values.pop()
    return values


_YEAR = re.compile(r"\b(?:19|20)\d\d\b")


def _cell_score(
    cell: SpanFacts, question: set[str], chosen: list[SpanFacts], years: set[str] = frozenset()
) -> int:
    """How well a cell fits a question: shared words, years the question names in the cell's
    row label or column header (the year is what tells a 2022 cell from a 2021 cell holding
    the same figure), and a shared row or column with the cells already chosen (the cells of
    one computation usually sit on one line)."""
    label = (cell.envelope or "").split(" \u2014 ", 1)[-1]
    score = len(question & content_stems(label))
    score += 2 * len(years & set(_YEAR.findall(label.rsplit(":", 1)[0])))
    row, col = cell.span_id.split(".")
    for other in chosen:
        if other.span_id.startswith("t"):
            other_row, other_col = other.span_id.split(".")
            score += 2 * (other_row == row) + (other_col == col)
    return score


def bind_operands(
    question: str, values: list[float], cells: list[SpanFacts], paragraphs: list[str]
) -> dict[str, SpanFacts] | None:
    """The spans an application would cite for each figure: the cell holding it that best fits
    the question's words and years (a cell is cited once, unless no other cell holds the
    figure), else the first paragraph sentence that writes it; ``None`` when a figure is in
    neither."""
    wanted = content_stems(question)
    years = set(_YEAR.findall(question))
    chosen: list[SpanFacts] = []
    for value in values:
        holding = [s for s in cells if _number(s.text) == value]
        fresh = [s for s in holding if s not in chosen] or holding
        if fresh:
            chosen.append(max(fresh, key=lambda s: _cell_score(s, wanted, chosen, years)))
            continue
        sentence = next(
            (s for s in paragraphs if any(abs(a.mantissa) == value for a in numbers(s))), None
        )
        if sentence is None:
            return None
        chosen.append(span(f"p{paragraphs.index(sentence)}", sentence))
    return {s.span_id: s for s in chosen}


def tatqa_cases(root: Path) -> Iterator[Case]:
    """Arithmetic answers as claims citing their gold cells, and three perturbations of each."""
    for context in tatqa(root):
        table = context["table"]["table"]  # type: ignore[index]
        paragraphs = [
            sentence
            for p in context["paragraphs"]  # type: ignore[attr-defined]
            for sentence in sentences_of(p["text"])
        ]
        cells = _table_spans(table, caption(table, paragraphs))
        for q in context["questions"]:  # type: ignore[attr-defined]
            if q["answer_type"] != "arithmetic" or not isinstance(q["answer"], int | float):
                continue
            values = _operand_values(q["derivation"])
            bound = bind_operands(q["question"], values, cells, paragraphs)
            if not bound:
                yield Case("tatqa_unbuilt", ClaimDraft(q["question"]), {})
                continue
            answer = float(q["answer"])
            decimals = _decimals(answer)
            variants = [("tatqa_arithmetic", answer, decimals)]
            if answer:
                # Zero has no sign, and ten times or 3% more of it is still zero.
                variants.append(("tatqa_sign_flip", -answer, decimals))
                variants.append(("tatqa_x10", answer * 10, decimals))
                variants.append(("tatqa_plus3pct", answer * 1.03, decimals + 2))
            for category, value, places in variants:
                text = claim_sentence(q["question"], _format(value, q["scale"], places))
                claim = ClaimDraft(
                    text,
                    type=ClaimType.COMPUTATIONAL,
                    bindings=tuple(Binding(k) for k in bound),
                )
                yield Case(category, claim, bound)


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
