"""TAT-QA dev questions turned into claims citing their table cells and sentences.

How cells are bound, what stands in for a table's title, and which questions are not built
are described in docs/gate.md ("How the TAT-QA claims are built"); the tables are read by
:mod:`benchmarks.tatqa_tables`.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from pathlib import Path

from benchmarks.eval_cases import Case, half_of, sentences_of, span
from benchmarks.tatqa_tables import (
    _FIGURE,
    _clean_cell,
    _table_spans,
    caption,
    header_row_count,
)
from ledger.gate import Binding, ClaimDraft, ClaimType, SpanFacts
from ledger.gate.anchors.numbers import numbers
from ledger.gate.computation.claimed import OPERATION_WORDS
from ledger.gate.lexicon.words import content_stems
from ledger.text.tables import cell_labels

# -- TAT-QA ----------------------------------------------------------------------------------


QUESTION_FORM = "_question"
"""The suffix of the categories whose claims keep the question's form."""


def tatqa(root: Path) -> list[dict[str, object]]:
    """TAT-QA dev contexts."""
    return json.loads((root / "tatqa" / "tatqa_dataset_dev.json").read_text())  # type: ignore[no-any-return]


_QUESTION = re.compile(
    r"^(?P<pre>.*?)\b(?:what|how much|how many)\s+(?:is|was|are|were|did|does|do)?\s*(?:the\s+)?"
    r"(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)


def _number(text: str) -> float | None:
    found = numbers(text)
    return abs(found[0].mantissa) if found else None


def claim_sentence(question: str, answer: str) -> str:
    """A declarative claim from a TAT-QA question and its formatted answer."""
    q = question.strip().rstrip("?").strip()
    match = _QUESTION.match(q)
    body = f"{match['pre']}the {match['rest']}" if match else q
    return f"{body[0].upper()}{body[1:]} is {answer}."


def question_claim(question: str, answer: str) -> str:
    """A claim in question form: the TAT-QA question followed by its formatted answer
    (``What was the average operating expense in 2018 and 2019: 212.5 million.``), as an
    application answering a question would write it."""
    q = question.strip().rstrip("?").strip()
    return f"{q[0].upper()}{q[1:]}: {answer}."


def _format(value: float, scale: str, decimals: int) -> str:
    text = f"{value:,.{decimals}f}"
    if scale == "percent":
        return f"{text}%"
    return f"{text} {scale}" if scale else text


def _decimals(value: float) -> int:
    text = repr(float(value))
    return 0 if text.endswith(".0") else len(text.split(".")[1])


_AVERAGE_DIVISOR = re.compile(r"\)\s*/\s*(\d+)\s*$")
_MINUS_ONE = re.compile(r"/[^/]*-\s*1\s*$")
_CHANGE_OVER_BASE = re.compile(r"^\s*[(\[][^/]*[)\]]\s*/\s*\(?[^/]*$")
_HUNDRED = re.compile(r"[*x\u00d7/]\s*100\b|\b100\s*[*x\u00d7]")


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
    cell: SpanFacts,
    question: set[str],
    chosen: list[SpanFacts],
    years: AbstractSet[str] = frozenset(),
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
    """Arithmetic answers as claims citing their gold cells, and three perturbations of each,
    each written declaratively and in question form, with the half of its table."""
    for context in tatqa(root):
        yield from context_cases(context)


def paragraph_sentences(context: dict[str, object]) -> list[str]:
    """The sentences of a TAT-QA context's paragraphs, in order (``p{i}`` span ids)."""
    return [
        sentence
        for p in context["paragraphs"]  # type: ignore[attr-defined]
        for sentence in sentences_of(p["text"])
    ]


def context_cases(context: dict[str, object]) -> Iterator[Case]:
    """The cases of one TAT-QA context (a table, its paragraphs and questions); a cell's span
    id is ``t{row}.{col}`` in the table as given, a sentence's ``p{index}``."""
    table = context["table"]["table"]  # type: ignore[index]
    paragraphs = paragraph_sentences(context)
    cells = _table_spans(table, caption(table, paragraphs))
    half = half_of(str(context["table"]["uid"]))  # type: ignore[index]
    for q in context["questions"]:  # type: ignore[attr-defined]
        if q["answer_type"] != "arithmetic" or not isinstance(q["answer"], int | float):
            continue
        values = _operand_values(q["derivation"])
        bound = bind_operands(q["question"], values, cells, paragraphs)
        if not bound:
            yield Case("tatqa_unbuilt", ClaimDraft(q["question"]), {}, half)
            continue
        answer = float(q["answer"])
        decimals = _decimals(answer)
        variants = [("tatqa_arithmetic", answer, decimals)]
        if gold_agrees(q) and words_name_cells(q["question"], bound):
            variants.append(("tatqa_named", answer, decimals))
        if answer:
            # Zero has no sign, and ten times or 3% more of it is still zero.
            variants.append(("tatqa_sign_flip", -answer, decimals))
            variants.append(("tatqa_x10", answer * 10, decimals))
            variants.append(("tatqa_plus3pct", answer * 1.03, decimals + 2))
        questions = [
            (category, q["question"], value, places) for category, value, places in variants
        ]
        questions += [
            (category, swapped, answer, decimals)
            for category, swapped in (
                ("tatqa_line_swap", line_swap(q["question"], table, bound)),
                ("tatqa_period_swap", period_swap(q["question"])),
            )
            if swapped is not None
        ]
        for category, question, value, places in questions:
            answer_text = _format(value, q["scale"], places)
            for suffix, text in (
                ("", claim_sentence(question, answer_text)),
                (QUESTION_FORM, question_claim(question, answer_text)),
            ):
                claim = ClaimDraft(
                    text,
                    type=ClaimType.COMPUTATIONAL,
                    bindings=tuple(Binding(k) for k in bound),
                )
                yield Case(category + suffix, claim, bound, half)


_DERIVATION_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div)


def _evaluate(node: ast.expr) -> float:
    """The value of a derivation's expression tree: figures and ``+ - * /`` only."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _evaluate(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        return left / right
    raise ValueError("not a derivation")


def derivation_value(derivation: str) -> float | None:
    """The value of a TAT-QA derivation (``(5,765.2+5,050.2)/2``, ``($90,253-$67,510)/$67,510``),
    or ``None`` when it is not plain arithmetic of figures."""
    text = derivation.replace("$", "").replace("%", "").replace("[", "(").replace("]", ")")
    text = _DERIVATION_NUMBER.sub(lambda m: m.group(0).replace(",", ""), text)
    try:
        return _evaluate(ast.parse(text.strip(), mode="eval").body)
    except (SyntaxError, ValueError, ZeroDivisionError):
        return None


def gold_agrees(question: dict[str, object]) -> bool:
    """Whether a TAT-QA answer is what its own derivation gives (in percent when its scale is
    one), within half a unit of the answer's last written digit or 0.5% of it, as the gate
    rounds (TAT-QA writes ``-0.6%`` for ``(40.6 - 41.2) / 41.2`` and answers of the opposite
    sign): the gold a claim could be checked against."""
    value = derivation_value(str(question["derivation"]))
    if value is None:
        return False
    if question["scale"] == "percent":
        value *= 100
    answer = float(question["answer"])  # type: ignore[arg-type]
    half_unit = 0.5 * 10.0 ** -_decimals(answer)
    return abs(value - answer) <= max(0.005 * abs(answer), min(half_unit, 0.05 * abs(answer)))


_QUESTION_WORDS = frozenset(["what", "how", "much", "many", "did", "does", "do"])


def words_name_cells(question: str, bound: dict[str, SpanFacts]) -> bool:
    """Whether a question's words name its cited spans: each of its content words (less the
    words that name the arithmetic, ``change``, ``average``, ``percentage``: the gate's
    ``OPERATION_WORDS``) is in the text or envelope of a cited span, and it shares a word with
    the row labels and column header of each cited cell that has any (the line and period the
    cell is of). The claims an application could write from the cells alone."""
    ignore = OPERATION_WORDS | _QUESTION_WORDS
    wanted = content_stems(question, ignore)
    cited: set[str] = set()
    for facts in bound.values():
        cited |= content_stems(facts.evidence_text)
    if not wanted <= cited:
        return False
    for facts in bound.values():
        if facts.envelope:
            labels = content_stems(cell_labels(facts.envelope, facts.text))
            if labels and not labels & wanted:
                return False
    return True


_CLAIM_YEAR = re.compile(r"(?<![\d,.])(?:19|20)\d\d(?![\d,.]\d)")


def period_swap(question: str) -> str | None:
    """The question with every year it names one year earlier (``from 2018 to 2019`` ->
    ``from 2017 to 2018``): the correct answer then belongs to other periods than the
    question names, so a claim of it citing the same cells must not be verified. ``None``
    when the question names no year."""
    if not _CLAIM_YEAR.search(question):
        return None
    return _CLAIM_YEAR.sub(lambda m: str(int(m.group(0)) - 1), question)


def line_swap(question: str, table: list[list[str]], bound: dict[str, SpanFacts]) -> str | None:
    """The question with the row label of a cited cell replaced by the label of another row
    of the same table that no cited cell is on (``Maintenance`` -> ``Cloud``): the correct
    answer then belongs to another line than the claim names, so citing the same cells must
    not verify it (a swapped entity). Of the other rows, the nearest one whose label shares no
    word with the cited label; ``None`` when the question does not write a cited label or no
    such row exists."""
    cited = sorted({int(k[1:].split(".")[0]) for k in bound if k.startswith("t")})
    lowered = question.lower()
    lines = [
        (row, label)
        for row in range(header_row_count(table), len(table))
        if (label := _clean_cell(table[row][0]))
        and content_stems(label)
        and any(_FIGURE.fullmatch(_clean_cell(cell)) for cell in table[row][1:])
    ]
    for row in cited:
        label = _clean_cell(table[row][0])
        at = lowered.find(label.lower()) if content_stems(label) else -1
        if at < 0:
            continue
        # A label sharing a word with a cited cell's row labels or column header (a section
        # label: ``Services`` over ``Services: Total revenue``) may still name that cell.
        heads = content_stems(
            " ".join(cell_labels(s.envelope or "", s.text) for s in bound.values())
        )
        others = sorted(
            (abs(other - row), other_label)
            for other, other_label in lines
            if other not in cited
            and not (heads | content_stems(label)) & content_stems(other_label)
        )
        if others:
            return question[:at] + others[0][1] + question[at + len(label) :]
    return None
