"""Words as the alignment sees them: a comparison key, a role, and the cues each one carries.

A key makes forms of one word or figure meet (``rose``/``rises`` do not, ``approved``/
``approves`` do; ``3``/``three``; ``1,000``/``1000``; ``%``/``percent``; ``mn``/``million``;
``Jan``/``January``). A role (:class:`Kind`) names what kind of anchor a word is, so that a word
standing where the span has another word of the same kind (``three days``/``two days``,
``Q1``/``Q4``) is a substitution, not a paraphrase.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import lru_cache
from itertools import repeat

from ledger.gate.lexicon.cues import (
    ALIGNMENT_HEDGES,
    CONDITIONS,
    DIRECTIONS,
    HEDGES,
    MODALS,
    NEGATION_CUES,
    NEGATIONS,
    NEGATIVE_IMPLICATIVES,
    PERMISSIONS,
    PREVENTIVES,
    STRICT_HEDGES,
)
from ledger.gate.lexicon.words import STOP_WORDS, stem, word_set


def _ordered(text: str) -> list[str]:
    """The whitespace-separated words of ``text`` in order (for the word lists below)."""
    return text.split()


class Kind(StrEnum):
    """The anchor role of a word; ``WORD`` for every other word."""

    WORD = "word"
    NUMBER = "number"
    ORDINAL = "ordinal"
    PERIOD = "period"
    MONTH = "month"
    YEAR = "year"
    SCALE = "scale"
    UNIT = "unit"
    PERSON = "person"


ANCHOR_KINDS = frozenset(
    {Kind.NUMBER, Kind.ORDINAL, Kind.PERIOD, Kind.MONTH, Kind.YEAR, Kind.SCALE, Kind.UNIT}
)
"""The roles of the words that write an anchor: figures, dates and their units."""


@dataclass(frozen=True, slots=True)
class Word:
    """One word of a claim or span: its text, key, role, cues, and whether it must align.

    ``must``: a claim word that has to find its place in the span (every word but grammar and
    hedges; a gendered pronoun, grammar otherwise, must); ``negation``/``hedge``: the word
    negates or hedges what it stands in;
    ``sentence``: the number of the clause of its text it is in.
    """

    text: str
    key: str
    kind: Kind
    must: bool
    negation: bool
    hedge: bool
    sentence: int
    item: bool = True
    """Whether the word takes part in the alignment: not grammar, a hedge, or a gendered
    pronoun."""


_NUMBER_WORDS = {
    w: str(i)
    for i, w in enumerate(
        _ordered(
            """
            zero one two three four five six seven eight nine ten eleven twelve thirteen
            fourteen fifteen sixteen seventeen eighteen nineteen twenty
            """
        )
    )
} | {"thirty": "30", "forty": "40", "fifty": "50", "hundred": "100", "dozen": "12"}
_ORDINAL_WORDS = {
    w: f"ord{i}"
    for i, w in enumerate(
        _ordered(
            """
            zeroth first second third fourth fifth sixth seventh eighth ninth tenth
            eleventh twelfth
            """
        )
    )
    if i
}
_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$")
_PERIOD = re.compile(r"^(?:q[1-4]|h[12]|fy\d{2}(?:\d{2})?|[1-4]q|\d{1,2}m)$")
_MONTHS = {
    name: full
    for full in _ordered(
        """
            january february march april may june july august september october november
            december
            """
    )
    for name in (full, full[:3], "sept" if full == "september" else full)
}
_SCALES = {
    "thousand": "thousand",
    "thousands": "thousand",
    "million": "million",
    "millions": "million",
    "mn": "million",
    "mln": "million",
    "billion": "billion",
    "billions": "billion",
    "bn": "billion",
    "bln": "billion",
    "trillion": "trillion",
    "trillions": "trillion",
}
_UNITS = {"%": "percent", "percent": "percent", "pct": "percent", "percentage": "percentage"}
_UNITS |= {"point": "point", "points": "point", "bps": "bps", "basis": "basis"}
_UNITS |= dict.fromkeys(("usd", "dollar", "dollars", "us$"), "usd")
_UNITS |= {"eur": "eur", "euro": "eur", "euros": "eur", "gbp": "gbp", "pounds": "gbp"}
_PERSONS = dict.fromkeys(("he", "him", "his", "himself"), "he") | dict.fromkeys(
    ("she", "her", "hers", "herself"), "she"
)
"""Gendered third-person pronouns, keyed by gender. They are grammar for the stretches'
counts, but a claim's must align (who ``she`` is, a span that names nobody so does not say),
and one is never a paraphrase of the other gender (``she approved`` over ``he approved``).
Other pronouns have no role: a summary writes ``they`` or ``the company`` for a transcript's
``we``."""
_YEAR = re.compile(r"^(?:1[89]|20)\d\d$")
_NUMERIC = re.compile(r"^\d[\d.,]*$")
_FIGURE_WITH_UNIT = re.compile(r"^\d[\d,]*(?:\.\d+)?[a-z]{1,3}$")

KEEP = (
    NEGATIONS
    | frozenset(DIRECTIONS)
    | frozenset(_NUMBER_WORDS)
    | frozenset(_ORDINAL_WORDS)
    | word_set(
        """
        only all every each both few more most less least some any same other against off out
        over under above below before after up down non must shall should again
        """
    )
)
"""Stop words that carry meaning the gate checks: negation, direction, quantity, order,
repetition (``again``: a claim that something happened again says more than once)."""

GRAMMAR = STOP_WORDS - KEEP
"""Words a claim may add or drop without changing what it says."""

_IMPLICATIVE = re.compile(
    r"\b(?:fail|refus|neglect|forg[eo]t|omit|unable|yet|ceas|declin)[a-z]*\s+to\s+(?![\d$])"
    r"|\b(?:prevent|block|bar|ban|prohibit|stop|keep|kept|refrain|restrain|preclud|deter)"
    r"[a-z]*\s+(?:\w+\s+)?from\s+\w+ing\b"
)


_TOKEN = re.compile(r"n't|%|[;,]|[^\W_]+(?:[.,'][^\W_]+)*")
"""Words, ``n't``, ``%``, and the commas and semicolons that cut clauses (:func:`clauses`)."""
_ASCII_TOKEN = re.compile(_TOKEN.pattern, re.ASCII)
""":data:`_TOKEN` for ASCII text, where it finds the same tokens: a letter or digit is then
told by a table rather than by the Unicode database."""
_MASKS = re.compile(
    r"\b(?P<numero>NO|[Nn]o)\.(?=\s*\d)|\b(?P<month>May)(?=\s+\d)|(?<=[\w,]\s)(?P<month2>May)\b"
    r"|(?P<unit>(?i:\bin\s+(?:[$€£]\s*|u\.?s\.?\s+)?(?:thousands|millions|billions)\b"
    r"[^;:()\n]{0,40}?\b)except)\b"
    r"|\b(?P<notonly>[Nn]ot)(?=\s+only\b)"
    r"|\b(?P<abbrev>Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.(?=\s*\d)"
)
"""Words that look like cues and are not: ``No. 5`` (number sign), ``May 31`` and a capitalised
``May`` inside a sentence (month), the ``except`` of a unit note (``in millions, except per
share amounts``), the ``not`` of ``not only ... (but)``, and the stop of a month's abbreviation
before a day (``Sept. 15``: no sentence end)."""
_ABBREVIATED_DAY = re.compile(r"\b(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.\s*\d")
_REPLACEMENTS = {
    "numero": " numero ",
    "month": " maymonth ",
    "month2": " maymonth ",
    "notonly": " notonly ",
}


def _unmask(match: re.Match[str]) -> str:
    name = match.lastgroup or ""
    if name == "unit":
        return match.group(0)[: -len("except")] + " exceptunit "
    if name == "abbrev":
        return match.group(name) + " "
    return _REPLACEMENTS[name]


def mask_cues(text: str) -> str:
    """``text`` with the words of :data:`_MASKS` replaced by neutral tokens, before it is cut
    into sentences (so that ``No. 1`` is not a sentence end either)."""
    if (
        "May" in text
        or "No" in text
        or "NO" in text
        or "xcept" in text
        or "ot only" in text
        or (". " in text and _ABBREVIATED_DAY.search(text))
    ):
        return _MASKS.sub(_unmask, text)
    return text


_SPECIAL = {
    "n't": ("not", Kind.WORD),
    "maymonth": ("may", Kind.MONTH),
    "notonly": ("not", Kind.WORD),
}
"""Tokens with a key of their own: ``n't``, and the neutral tokens :func:`mask_cues` puts in."""


def _key(token: str) -> tuple[str, Kind]:
    """The comparison key and the anchor role of a lower-case token."""
    special = _SPECIAL.get(token)
    if special is not None:
        return special
    if token[0].isdigit():
        if _YEAR.match(token):
            return token, Kind.YEAR
        if _NUMERIC.match(token):
            plain = token.replace(",", "")
            if "." in plain:
                plain = plain.rstrip("0").rstrip(".")
            return plain, Kind.NUMBER
        ordinal = _ORDINAL.match(token)
        if ordinal:
            return f"ord{ordinal.group(1)}", Kind.ORDINAL
        if _PERIOD.match(token):
            return token, Kind.PERIOD
        if _FIGURE_WITH_UNIT.match(token):
            # A figure with its unit glued to it (``386.1p``, ``17x``, ``5g``) is a figure.
            return token, Kind.NUMBER
        return token, Kind.WORD
    if token in _NUMBER_WORDS:
        return _NUMBER_WORDS[token], Kind.NUMBER
    if token in _ORDINAL_WORDS:
        return _ORDINAL_WORDS[token], Kind.ORDINAL
    if token in _MONTHS:
        return _MONTHS[token], Kind.MONTH
    if token in _SCALES:
        return _SCALES[token], Kind.SCALE
    if token in _UNITS:
        return _UNITS[token], Kind.UNIT
    if token in _PERSONS:
        return _PERSONS[token], Kind.PERSON
    if _PERIOD.match(token):
        return token, Kind.PERIOD
    return stem(token), Kind.WORD


@lru_cache(maxsize=65536)
def _word(token: str, sentence: int = 0) -> Word:
    """One token as a :class:`Word` (tokens recur: each is worked out once)."""
    key, kind = _key(token)
    hedge = token in HEDGES or token in MODALS or token in CONDITIONS or token in ALIGNMENT_HEDGES
    person = kind is Kind.PERSON
    return Word(
        text=token,
        key=key,
        kind=kind,
        must=(token not in GRAMMAR and (not hedge or token in STRICT_HEDGES)) or person,
        negation=token in NEGATION_CUES,
        hedge=hedge,
        sentence=sentence,
        item=token not in GRAMMAR or hedge or person,
    )


def words(text: str, sentence: int = 0) -> list[Word]:
    """The words of one sentence of (masked) text, in order, with its commas and semicolons
    (:func:`clauses` cuts at them and drops them)."""
    pattern = _ASCII_TOKEN
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text).replace("\u2019", "'")
        pattern = _TOKEN
    folded = text.lower()
    if "n't" in folded:
        folded = folded.replace("n't", " n't")
    found = pattern.findall(folded)
    if "'s" in folded:
        found = [t[:-2] if t.endswith("'s") else t for t in found]
    if sentence:
        out = list(map(_word, filter(None, found), repeat(sentence)))
    else:
        out = list(map(_word, filter(None, found)))
    if (" to " in folded or " from " in folded) and _IMPLICATIVE.search(folded):
        _implicatives(out)
    if "at the earliest" in folded or "at the latest" in folded:
        _outer_dates(out)
    return out


OUTER_DATES = word_set("earliest latest")
"""``at the earliest``, ``at the latest``: a date the span gives as a bound, not as the date
(``completed in 2025 at the earliest``)."""


def _outer_dates(found: list[Word]) -> None:
    """Mark, in place, the ``earliest`` or ``latest`` of ``at the earliest`` / ``at the
    latest`` as a hedge (the alignment reads it after a claim's last word, as it reads
    ``until``: :data:`ledger.gate.alignment.reach.LIMITS`)."""
    for i in range(2, len(found)):
        word = found[i]
        if word.text in OUTER_DATES and found[i - 1].text == "the" and found[i - 2].text == "at":
            found[i] = _hedged(word)


def permissions(found: list[Word]) -> None:
    """Mark, in place, a claim's modal of permission as a hedge of its own
    (:data:`ledger.gate.lexicon.cues.PERMISSIONS`: ``can``, and ``allowed`` or ``permitted``
    before ``to``)."""
    for i, word in enumerate(found):
        if word.text in PERMISSIONS and (
            word.text == "can" or (i + 1 < len(found) and found[i + 1].text == "to")
        ):
            found[i] = _hedged(word)


def _implicatives(found: list[Word]) -> None:
    """Mark, in place, as a negation each word of :data:`NEGATIVE_IMPLICATIVES` that governs
    an infinitive (``to`` and then a word that is not an article, a figure or a month) and
    each word of :data:`PREVENTIVES` that governs a gerund (``from``, one word after it at
    most: ``kept investors from selling``)."""
    for i in range(len(found) - 2):
        word = found[i]
        if word.text in NEGATIVE_IMPLICATIVES and found[i + 1].text == "to":
            verb = found[i + 2]
            if verb.kind is Kind.WORD and verb.text not in _ARTICLES and verb.text[0].isalpha():
                found[i] = _negated(word)
        elif word.text in PREVENTIVES:
            for j in (i + 1, i + 2):
                if j + 1 < len(found) and found[j].text == "from":
                    if found[j + 1].text.endswith("ing"):
                        found[i] = _negated(word)
                    break


_ARTICLES = word_set("the a an its their his her our my your this that these those")


@lru_cache(maxsize=256)
def _negated(word: Word) -> Word:
    """``word`` as a negation cue."""
    return replace(word, negation=True)


@lru_cache(maxsize=16)
def _hedged(word: Word) -> Word:
    """``word`` as a hedge (a hedge need not align)."""
    return replace(word, hedge=True, must=False)
