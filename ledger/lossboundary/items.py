"""Must-keep items: what an input text holds that a transformation's output must keep, and how
an output is read to tell whether it kept them.

An input is cut into sentences (:func:`ledger.gate.lexicon.words.sentences`) and each sentence
into clauses: at a semicolon, at a colon before a space, and at a comma before a word that
opens a clause of its own (:data:`CLAUSE_OPENERS`: ``, unless ...``, ``, but ...``; not ``,
and``, which joins the items of a list as often as two clauses, so a list after ``except``
stays whole). Each clause gives:

- one item per figure (:mod:`ledger.gate.anchors.numbers`) and per date or year, when
  ``numbers`` or ``dates`` must be kept: a threshold with its bound (``up to $250``,
  ``within 30 days``, ``after 1 March 2024``: the bound words of the gate's qualifier check
  and its time bounds), and a plain count with the word it counts (``30 days`` is not ``30
  months``); a number after a capitalised word inside its clause names a thing (``Schedule
  2``, ``Tier 2``) and is no figure;
- one item per kind of cue it carries (:data:`ledger.lossboundary.vocabulary.CUES`), when that
  kind must be kept: the clause as written, with the content words the output must carry
  beside as many cues of the same kind.

An item of an example sentence, or of an input from a low-weight source, is *released* when
the transformation may remove examples or low-weight sources.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from ledger.gate.alignment.clauses import COMMA_BREAKS, EXCEPTIONS
from ledger.gate.anchors.check import amounts_match
from ledger.gate.anchors.numbers import Amount
from ledger.gate.anchors.reading import cue_tokens, read_text
from ledger.gate.lexicon.words import STOP_WORDS, sentences, stem, stems_of, tokens, word_set
from ledger.gate.narrowing.qualifiers import BOUNDS
from ledger.lossboundary.vocabulary import (
    CUE_WORDS,
    CUES,
    EXAMPLE_OPENINGS,
    MayRemove,
    MustKeep,
)

CLAUSE_OPENERS = (
    (COMMA_BREAKS - {"and", "while"})
    | EXCEPTIONS
    | {
        "unless",
        "if",
        "however",
        "provided",
        "providing",
        "subject",
    }
)
"""Words that open a clause of their own after a comma: the gate's comma breaks (``but``,
``although``, ``though``, ``whereas``, ``so``; not ``and``, not ``while``), its exception
words, ``unless``, ``if``, ``however`` and ``provided`` (``providing``, ``subject``) that."""
_CLAUSE_CUT = re.compile(
    r";\s*|:\s+|,\s*(?=(?:" + "|".join(sorted(CLAUSE_OPENERS)) + r")\b)", re.IGNORECASE
)
_CUE_STEMS = frozenset(stem(word) for word in CUE_WORDS)
_TRIM = " \t\n.,;:!?"
THRESHOLD_BOUNDS = BOUNDS | word_set("within by since after before until till")
"""Words that bound the figure or date they stand before: the gate's bounds on a figure
(``over``, ``under``, ``at least``, ``up to``, ``more than``) and its bounds on a time (``by``,
``since``, ``after``, ``before``, ``until``), and ``within``."""
_LINKS = frozenset({"than", "to", "of", "as"})
"""Words that link a bound to its figure (``more than``, ``up to``, ``in excess of``)."""
_NEAR = 40
"""How many characters either side of a figure are read for its bound and its unit."""


def bound_before(text: str, start: int) -> str | None:
    """The bound written right before the figure or date at ``start`` (``up to``, ``within``,
    ``after``), or None."""
    before = tokens(text[max(0, start - _NEAR) : start])
    if len(before) > 1 and before[-2] == "at" and before[-1] in ("least", "most"):
        return f"at {before[-1]}"
    if before and before[-1] in THRESHOLD_BOUNDS:
        return before[-1]
    if len(before) > 1 and before[-1] in _LINKS and before[-2] in THRESHOLD_BOUNDS:
        return f"{before[-2]} {before[-1]}"
    return None


_NAMED = re.compile(r"(?<=\S)\s+[A-Z][a-z]+\s*$")
"""A capitalised word right before a figure, not the first word of its clause: ``Schedule 2``,
``Tier 2``, ``Windows 11`` name a thing rather than count it."""


def is_name(text: str, figure: Amount) -> bool:
    """Whether a plain number is part of a name (``Schedule 2``, ``Plan 3``): not a figure."""
    if figure.currency is not None or figure.kind != "number":
        return False
    return _NAMED.search(text, max(0, figure.start - _NEAR), figure.start) is not None


def unit_after(text: str, figure: Amount) -> str | None:
    """The stem of the word a plain count counts (``30 days``, ``30-day``, ``5 reviewers``), or
    None for a figure with a currency or a percent, or followed by no content word."""
    if figure.currency is not None or figure.kind != "number":
        return None
    after = tokens(text[figure.end : figure.end + _NEAR])
    if not after or after[0] in STOP_WORDS or after[0][0].isdigit():
        return None
    return stem(after[0])


@dataclass(frozen=True, slots=True)
class MustKeepItem:
    """One must-keep item of one input span.

    ``text`` is what the input writes: the figure or the date (with its bound), or the
    clause. A figure keeps its reading (``figure``) and the stem of what it counts (``unit``),
    a date its ISO key (``date``), both their bound (``bound``); a clause item keeps the words
    that mark it as kept in an output sentence (``kept_by``), how many of its kind's cues the
    clause holds (``cues``: a sentence that keeps one ``not`` of two has lost the other) and
    the stems of its content words that sentence must carry (``words``). ``released_by``
    names what the transformation may remove that releases it (``examples``,
    ``low_weight_sources``), or is None.
    """

    kind: MustKeep
    cue: str
    span_id: str
    text: str
    released_by: MayRemove | None = None
    figure: Amount | None = None
    date: str | None = None
    bound: str | None = None
    unit: str | None = None
    kept_by: frozenset[str] = frozenset()
    cues: int = 0
    words: frozenset[str] = frozenset()

    def to_json(self) -> dict[str, Any]:
        """The item as a record and a refusal name it."""
        out: dict[str, Any] = {
            "must_keep": self.kind.value,
            "cue": self.cue,
            "item": self.text,
            "span_id": self.span_id,
        }
        if self.released_by is not None:
            out["released_by"] = self.released_by.value
        return out

    def kept_in(self, output: OutputReading) -> bool:
        """Whether ``output`` keeps this item: the same figure (with the same bound and what it
        counts) or date (with the same bound) anywhere in it, or one sentence with as many
        cues of this item's kind as its clause has (``cues``) and every one of its content
        words."""
        if self.figure is not None:
            figure, bound, unit = self.figure, self.bound, self.unit
            return any(
                amounts_match(figure, other, None)
                and (bound is None or bound == other_bound)
                and (unit is None or unit == other_unit)
                for other, other_bound, other_unit in output.figures
            )
        if self.date is not None:
            key, bound = self.date, self.bound
            return any(
                other.startswith(key) and (bound is None or bound == other_bound)
                for other, other_bound in output.dates
            )
        return any(
            _count(cues, self.kept_by) >= self.cues and self.words <= stems
            for cues, stems in output.sentences
        )


@dataclass(frozen=True, slots=True)
class OutputReading:
    """A transformation's output as the items are looked for in it: its figures (each with
    its bound and unit), its dates (each with its ISO key and bound), and for each sentence its
    cue words and the stems of its content words."""

    figures: tuple[tuple[Amount, str | None, str | None], ...]
    dates: tuple[tuple[str, str | None], ...]
    sentences: tuple[tuple[Counter[str], frozenset[str]], ...]


def read_output(text: str) -> OutputReading:
    """Read an output once for every item of every input."""
    reading = read_text(text, words=False)
    return OutputReading(
        figures=tuple(
            (a, bound_before(text, a.start), unit_after(text, a)) for a in reading.anchors.amounts
        ),
        dates=tuple((d.key, bound_before(text, d.start)) for d in reading.dates),
        sentences=tuple(
            (_cues(sentence), stems_of(tokens(sentence))) for sentence in sentences(text)
        ),
    )


def _cues(text: str) -> Counter[str]:
    """The words of ``text`` that can be cues, each with how often it occurs: its tokens (less
    ``May`` the month and ``No.`` the number sign) and each pair of neighbouring tokens
    (``subject to``)."""
    found = cue_tokens(text)
    return Counter(found) + Counter(f"{a} {b}" for a, b in pairwise(found))


def _count(cues: Counter[str], words: frozenset[str]) -> int:
    """How many of ``cues`` are ``words``."""
    return sum(count for word, count in cues.items() if word in words)


def clauses(sentence: str) -> list[str]:
    """The clauses of one sentence, each as written, trimmed of spaces and stops."""
    return [piece.strip(_TRIM) for piece in _CLAUSE_CUT.split(sentence) if piece.strip(_TRIM)]


def is_example(sentence: str) -> bool:
    """Whether a sentence says it is an example (``For example, ...``, ``E.g. ...``)."""
    words = tokens(sentence)
    return any(tuple(words[: len(opening)]) == opening for opening in EXAMPLE_OPENINGS)


def must_keep_items(
    span_id: str,
    text: str,
    must_keep: Collection[MustKeep],
    may_remove: Collection[MayRemove] = (),
    *,
    low_weight: bool = False,
) -> list[MustKeepItem]:
    """Every must-keep item of one input span's ``text``, in the order the text has them, each
    once per span (a figure said twice is one item)."""
    found: dict[tuple[str, str, str], MustKeepItem] = {}
    source_release = (
        MayRemove.LOW_WEIGHT_SOURCES
        if low_weight and MayRemove.LOW_WEIGHT_SOURCES in may_remove
        else None
    )
    for sentence in sentences(text):
        release = source_release
        if release is None and MayRemove.EXAMPLES in may_remove and is_example(sentence):
            release = MayRemove.EXAMPLES
        for clause in clauses(sentence):
            for item in _clause_items(span_id, clause, must_keep, release):
                identity = (item.kind.value, item.cue, _identity(item))
                found.setdefault(identity, item)
    return list(found.values())


def _written(clause: str, start: int, end: int, bound: str | None, unit: str | None) -> str:
    """How the clause writes a figure or date with its bound and unit (``up to $250``,
    ``within 30 days``): from the bound's first word to the unit's end."""
    if bound is not None:
        at = clause.lower().rfind(bound.split()[0], 0, start)
        start = at if at >= 0 else start
    if unit is not None:
        word = re.match(r"[\s-]*[^\W_]+", clause[end:])
        end = end + word.end() if word else end
    return clause[start:end].strip()


def _identity(item: MustKeepItem) -> str:
    if item.figure is not None:
        figure = item.figure
        return f"{figure.kind}:{figure.currency}:{abs(figure.value)!r}:{item.bound}:{item.unit}"
    if item.date is not None:
        return f"{item.date}:{item.bound}"
    return " ".join(sorted(item.words)) + "|" + item.text.casefold()


def _clause_items(
    span_id: str, clause: str, must_keep: Collection[MustKeep], release: MayRemove | None
) -> list[MustKeepItem]:
    items: list[MustKeepItem] = []
    if MustKeep.NUMBERS in must_keep or MustKeep.DATES in must_keep:
        reading = read_text(clause, words=False)
        if MustKeep.NUMBERS in must_keep:
            for a in reading.anchors.amounts:
                if is_name(clause, a):
                    continue
                bound, unit = bound_before(clause, a.start), unit_after(clause, a)
                text = _written(clause, a.start, a.end, bound, unit)
                items.append(
                    MustKeepItem(
                        MustKeep.NUMBERS, "figure", span_id, text, release, a, None, bound, unit
                    )
                )
        if MustKeep.DATES in must_keep:
            for d in reading.dates:
                bound = bound_before(clause, d.start)
                text = _written(clause, d.start, d.end, bound, None)
                items.append(
                    MustKeepItem(
                        MustKeep.DATES, "date", span_id, text, release, date=d.key, bound=bound
                    )
                )
    wanted = [cue for cue in CUES if cue.kind in must_keep]
    if not wanted:
        return items
    present = _cues(clause)
    words = stems_of(tokens(clause)) - _CUE_STEMS
    for cue in wanted:
        cues = _count(present, cue.words)
        if cues:
            items.append(
                MustKeepItem(
                    cue.kind,
                    cue.name,
                    span_id,
                    clause,
                    release,
                    kept_by=cue.kept_by(frozenset(present)),
                    cues=cues,
                    words=words,
                )
            )
    return items
