"""Minimal edits of a true sentence that make it false, for the gate evaluation.

Each function takes a sentence and returns it with one edit of its kind, or ``None`` when the
sentence has nothing of that kind to edit. The edits are deterministic (the first candidate in
the sentence is edited) and written independently of the gate's own word lists, so that the
evaluation does not grade the gate with its own vocabulary. The edits of how a sentence frames
what it states are in :mod:`benchmarks.gate_mutations_framing`, those of a figure's qualifiers
in :mod:`benchmarks.gate_mutations_figures`; :data:`MUTATIONS` names them all.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from benchmarks.gate_mutations_figures import FIGURE_MUTATIONS
from benchmarks.gate_mutations_framing import (
    _put,
    again,
    bound,
    cause,
    embedded,
    exception,
    former,
    frequency,
    level,
    obligation,
    part,
    position,
    quantifier,
    rank,
    recency,
    relation,
    scope,
)

_AUXILIARY = re.compile(
    r"\b(is|are|was|were|has|have|had|will|can|could|would|should|does|do|did|must)\b(?!\s+not\b)"
)
_NEGATION = re.compile(r"\s+(?:not|never)\b|\bn't\b", re.IGNORECASE)


def negate(sentence: str) -> str | None:
    """Remove the sentence's first ``not``/``never``/``n't``, or else insert ``not`` after its
    first auxiliary verb."""
    found = _NEGATION.search(sentence)
    if found:
        return sentence[: found.start()] + sentence[found.end() :]
    aux = _AUXILIARY.search(sentence)
    if aux is None:
        return None
    return f"{sentence[: aux.end()]} not{sentence[aux.end() :]}"


_PAIRS = """
increase decrease increased decreased increases decreases increasing decreasing rose fell
rise fall rises falls risen fallen grew shrank growth decline higher lower highest lowest
above below more less most least larger smaller largest smallest first last before after
won lost win lose profit loss profits losses gain loss gains losses positive negative
strong weak stronger weaker up down early late earlier later expanding shrinking expand
shrink buyer seller buyers sellers best worst better worse majority minority maximum minimum
include exclude included excluded accept reject accepted rejected approved rejected new old
open closed opened closed start end started ended began ended entered left import export
imports exports long short longer shorter high low inside outside north south east west
"""
_ANTONYMS: dict[str, str] = {}
_words = _PAIRS.split()
for _a, _b in zip(_words[::2], _words[1::2], strict=True):
    _ANTONYMS.setdefault(_a, _b)
    _ANTONYMS.setdefault(_b, _a)
_WORD = re.compile(r"[A-Za-z]+")


def _swap_word(sentence: str, table: dict[str, str]) -> str | None:
    for match in _WORD.finditer(sentence):
        word = match.group(0)
        other = table.get(word.lower())
        if other is not None:
            if word[0].isupper():
                other = other[0].upper() + other[1:]
            return sentence[: match.start()] + other + sentence[match.end() :]
    return None


def antonym(sentence: str) -> str | None:
    """Swap the sentence's first word that has an opposite (``rose`` -> ``fell``)."""
    return _swap_word(sentence, _ANTONYMS)


_FIGURE = re.compile(r"(?<![\w.,])\d+(?:,\d{3})*(?:\.\d+)?(?![\w])")
_YEAR = re.compile(r"^(?:19|20)\d\d$")


def number(sentence: str) -> str | None:
    """Change the last digit of the sentence's first figure that is not a year."""
    for match in _FIGURE.finditer(sentence):
        text = match.group(0)
        if _YEAR.match(text):
            continue
        last = text[-1]
        new = text[:-1] + ("8" if last == "9" else str(int(last) + 1))
        return sentence[: match.start()] + new + sentence[match.end() :]
    return None


_ORDINALS = [
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
]
_ORDINAL_NEXT = dict(zip(_ORDINALS, [*_ORDINALS[1:], "first"], strict=True))
_ORDINAL_NEXT.update({"1st": "2nd", "2nd": "3rd", "3rd": "4th", "4th": "5th"})
_QUARTER = re.compile(r"\b(?:Q([1-4])|([Hh])([12]))\b|\b(first|second|third|fourth)\s+quarter\b")


def ordinal(sentence: str) -> str | None:
    """Replace the sentence's first ordinal with the next (``second`` -> ``third``), leaving
    quarters to :func:`quarter`."""
    for match in re.finditer(r"\b[A-Za-z0-9]+\b", sentence):
        word = match.group(0)
        other = _ORDINAL_NEXT.get(word.lower())
        if other is None or re.match(r"\s+quarter", sentence[match.end() :]):
            continue
        if word[0].isupper():
            other = other[0].upper() + other[1:]
        return sentence[: match.start()] + other + sentence[match.end() :]
    return None


def quarter(sentence: str) -> str | None:
    """Move the sentence's first quarter or half to another (``Q1`` -> ``Q4``, ``H1`` ->
    ``H2``, ``second quarter`` -> ``third quarter``)."""
    match = _QUARTER.search(sentence)
    if match is None:
        return None
    if match.group(1):
        new = f"Q{4 if match.group(1) == '1' else int(match.group(1)) - 1}"
    elif match.group(2):
        new = f"{match.group(2)}{3 - int(match.group(3))}"
    else:
        word = match.group(4)
        new = f"{_ORDINAL_NEXT[word] if word != 'fourth' else 'first'} quarter"
    return sentence[: match.start()] + new + sentence[match.end() :]


_SCALES = {
    "thousand": "million",
    "million": "billion",
    "billion": "million",
    "thousands": "millions",
    "millions": "billions",
    "billions": "millions",
}


def scale(sentence: str) -> str | None:
    """Swap the sentence's first scale word (``million`` -> ``billion``)."""
    return _swap_word(sentence, _SCALES)


_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_MONTH = re.compile(r"\b(" + "|".join(m for m in _MONTHS if m != "May") + r")\b")
_YEAR_IN_TEXT = re.compile(r"(?<![\w.,$])(?:19|20)\d\d(?![\w%])")


def period(sentence: str) -> str | None:
    """Move the sentence's first month to the next, or else its first year to the next."""
    month = _MONTH.search(sentence)
    if month is not None:
        new = _MONTHS[(_MONTHS.index(month.group(1)) + 1) % 12]
        if new == "May":
            new = "June"
        return sentence[: month.start()] + new + sentence[month.end() :]
    year = _YEAR_IN_TEXT.search(sentence)
    if year is None:
        return None
    return sentence[: year.start()] + str(int(year.group(0)) + 1) + sentence[year.end() :]


_GENDERED = {
    "he": "she",
    "she": "he",
    "him": "her",
    "her": "him",
    "his": "her",
    "hers": "his",
    "himself": "herself",
    "herself": "himself",
}


def gender(sentence: str) -> str | None:
    """Swap the gender of the sentence's first gendered pronoun (``he`` -> ``she``, ``her`` ->
    ``him``): the same sentence about someone else."""
    return _swap_word(sentence, _GENDERED)


_PLANNED = re.compile(r"\b([Ww]ill|[Ww]ould) be\b")


def plan(sentence: str) -> str | None:
    """State the sentence's first plan or forecast as a fact: ``will be`` -> ``is``, ``would
    be`` -> ``was``."""
    match = _PLANNED.search(sentence)
    if match is None:
        return None
    fact = "is" if match.group(1).lower() == "will" else "was"
    if match.group(1)[0].isupper():
        fact = fact.capitalize()
    return sentence[: match.start()] + fact + sentence[match.end() :]


_CONDITION = re.compile(r"(?<![;:])(?<!\beven)(?<!\bas),?\s+(?:if|unless)\s+(?!any\b)[^,.;:]*")


_OPENING_CONDITION = re.compile(r"(?:If|Unless)\s+(?!any\b)[^,;:]*,\s*")


def condition(sentence: str) -> str | None:
    """Drop the sentence's first condition (``, if profits rise``, ``unless ...`` up to the
    next punctuation), unless it is ``even if``, ``as if``, ``if any``, or opens a clause
    after a semicolon or colon (another clause's condition); failing one, the condition that
    opens the sentence (``If A, B`` -> ``B``)."""
    match = _CONDITION.search(sentence)
    if match is not None:
        edited = sentence[: match.start()] + sentence[match.end() :]
    else:
        match = _OPENING_CONDITION.match(sentence)
        if match is None:
            return None
        rest = sentence[match.end() :]
        edited = rest[:1].upper() + rest[1:]
    return edited if len(edited.split()) >= 4 else None


_DIRECTED = re.compile(
    r"(?<!\bcompared )(?<!\bcompares )(?<!\bcompare )(?<!\brelative )"
    r"\b([Ff]rom|[Tt]o)\b(?=\s+(?:the\b|an?\b|[A-Z0-9$]))"
)


def direction(sentence: str) -> str | None:
    """Swap the sentence's first ``from`` or ``to`` before a noun phrase (``moved to the
    office`` -> ``moved from the office``), not an infinitive's ``to`` nor the ``to`` of a
    comparison (``compared to``, ``relative to``: no direction to swap)."""
    match = _DIRECTED.search(sentence)
    if match is None:
        return None
    word = match.group(1)
    other = {"from": "to", "to": "from"}[word.lower()]
    if word[0].isupper():
        other = other.capitalize()
    return sentence[: match.start()] + other + sentence[match.end() :]


_JOINED = re.compile(r"(?<=\w )(and|or)(?= \w)")


def conjunction(sentence: str) -> str | None:
    """Swap the sentence's first ``and`` for ``or``, or ``or`` for ``and``."""
    match = _JOINED.search(sentence)
    if match is None:
        return None
    return _put(sentence, match, "or" if match.group(1) == "and" else "and")


_DAYS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
_DEADLINE = re.compile(
    rf"\bby(?=\s+(?:(?P<day>{_DAYS})\b|(?P<end>the end of)\b|"
    rf"(?P<month>{'|'.join(_MONTHS)})\b(?P<dated>\s+\d)?|(?P<year>(?:19|20)\d\d)\b))"
)


def deadline(sentence: str) -> str | None:
    """Turn the sentence's first deadline into a time (``by Friday`` -> ``on Friday``, ``by
    the end of June`` -> ``at the end of June``, ``by March 31`` -> ``on March 31``, ``by
    March`` / ``by 2025`` -> ``in March`` / ``in 2025``): the sentence now says when it
    happens, not by when."""
    match = _DEADLINE.search(sentence)
    if match is None:
        return None
    word = "on" if match.group("day") or match.group("dated") else "in"
    word = "at" if match.group("end") else word
    return sentence[: match.start()] + word + sentence[match.end() :]


MUTATIONS: dict[str, Callable[[str], str | None]] = {
    "negation": negate,
    "antonym": antonym,
    "number": number,
    "ordinal": ordinal,
    "quarter": quarter,
    "scale": scale,
    "period": period,
    "gender": gender,
    "plan": plan,
    "condition": condition,
    "direction": direction,
    "conjunction": conjunction,
    "embedded": embedded,
    "bound": bound,
    "relation": relation,
    "again": again,
    "part": part,
    "level": level,
    "frequency": frequency,
    "exception": exception,
    "recency": recency,
    "cause": cause,
    "obligation": obligation,
    "rank": rank,
    "former": former,
    "position": position,
    "scope": scope,
    "deadline": deadline,
    "quantifier": quantifier,
}
MUTATIONS |= FIGURE_MUTATIONS
"""Every kind of edit, by the name of its evaluation category (``mutant_<kind>``), those of
:mod:`benchmarks.gate_mutations_figures` last."""
