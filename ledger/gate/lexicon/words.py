"""Words of claims and spans as the content checks see them: tokens, stems, sentences.

Tokens are lower-cased runs of letters and digits after NFKC; ``n't`` is split off as its own
token so that ``didn't`` carries a negation. :func:`stem` is a small suffix stripper: it only has
to make ``approved``, ``approves`` and ``approving`` meet, not to produce dictionary words.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from ledger.text.stemming import INFLECTIONS, strip_suffix

_TOKEN = re.compile(r"n't|[^\W_]+(?:[.,'][^\W_]+)*")
_ASCII_TOKEN = re.compile(_TOKEN.pattern, re.ASCII)
""":data:`_TOKEN` for ASCII text, where it finds the same tokens (letters and digits told by a
table rather than by the Unicode database)."""
_SENTENCE_END = re.compile(r"(?<=[.!?;])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])|\n+")
_MAY_END = re.compile(r"[.!?;][\"')\]]*\s|\n")
"""What every cut of :data:`_SENTENCE_END` begins with: a cheaper test that rules most
one-sentence texts out (the lookbehind is otherwise tried at every position)."""
_CLOSERS = "\"')]"
"""The closing quotes and brackets :data:`_MAY_END` allows between a stop and the space."""
_DIGITS = re.compile(r"^[\d.,]+$")


def word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text`` as a set (for the word lists below)."""
    return frozenset(text.split())


STOP_WORDS = word_set(
    """
    a about above after again against all also am an and any are as at be because been before
    being between both but by can could did do does doing done down during each either else
    ever few for from further had has have having he her here hers herself him himself his how
    i if in into is it its itself just me more most my myself now of off on once only or other
    our ours ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up upon very was we
    were what when where which while who whom why will with would you your yours yourself
    yourselves s t n't one two three via per among amongst within onto whose shall must may
    might
    """
)
"""Function words; they carry no evidence of support."""

MONTH_WORDS = word_set(
    """
    january february march april june july august september october november december jan feb
    mar apr jun jul aug sep sept oct nov dec
    """
)
"""Month names (``may`` is a stop word); dates belong to the anchors."""

DOMAIN_WORDS = MONTH_WORDS | word_set(
    """
    net total year years yearly annual annually company companies group fiscal fy period
    amount amounts value values figure figures number numbers reported report according
    respectively approximately million billion thousand trillion percent per cent mn bn usd
    dollar dollars eur euro euros gbp
    """
)
"""Words too common in financial and news text to discriminate between spans."""


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude stem of a lower-case ``word`` (:func:`~ledger.text.stemming.strip_suffix`),
    with ``-ise``/``-ize`` and ``-yse``/``-yze`` spellings made one."""
    stemmed = strip_suffix(word, INFLECTIONS)
    if stemmed is None:
        return word
    # British and American spellings meet: "recognised" and "recognized", "amortisation" and
    # "amortization", "analysed" and "analyzed".
    if stemmed.endswith("isation"):
        return stemmed[:-6] + "zation"
    if len(stemmed) > 5 and stemmed.endswith(("is", "ys")):
        return stemmed[:-1] + "z"
    return stemmed


def tokens(text: str) -> list[str]:
    """The lower-cased word tokens of ``text`` in order."""
    pattern = _ASCII_TOKEN
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text).replace("\u2019", "'")
        pattern = _TOKEN
    folded = text.lower()
    if "n't" in folded:
        folded = folded.replace("n't", " n't")
    found: list[str] = pattern.findall(folded)
    if "'s" not in folded:
        return found
    return [t[:-2] if t.endswith("'s") else t for t in found]


def is_numeric(token: str) -> bool:
    """Whether a token is a number (digits with separators); numbers belong to the anchors."""
    return bool(_DIGITS.match(token))


_NOT_EVIDENCE = STOP_WORDS | DOMAIN_WORDS
_DOMAIN_STEMS = frozenset(stem(w) for w in DOMAIN_WORDS)
"""The stems of the domain words, so that their inflections (``periods``, ``millions``,
``cents``) carry no evidence either."""
_FOOTNOTED = re.compile(r"\b([^\W\d_]{3,})\d{1,2}\b")
"""A word with a footnote number glued to it, as table labels write them (``schemes1``)."""


def stems_of(words: Sequence[str], ignore: frozenset[str] = frozenset()) -> frozenset[str]:
    """Stems of the ``words`` that can carry evidence: not stop, domain or ``ignore`` words
    (nor an inflection of a domain word), not numbers."""
    found = (
        stem(w)
        for w in words
        if w not in _NOT_EVIDENCE and w not in ignore and not _DIGITS.match(w)
    )
    return frozenset(s for s in found if s not in _DOMAIN_STEMS)


def footnoted_stems(text: str) -> frozenset[str]:
    """The stems of words of ``text`` a footnote number is glued to (``Incentive schemes1``
    -> ``scheme``), less stop and domain words: a span's label still names what its footnote
    marks."""
    return stems_of([m.group(1).lower() for m in _FOOTNOTED.finditer(text)])


def content_stems(text: str, ignore: frozenset[str] = frozenset()) -> set[str]:
    """Stems of the words of ``text`` that can carry evidence: not stop words, not numbers."""
    return set(stems_of(tokens(text), ignore))


def may_end(text: str) -> bool:
    """Whether :data:`_MAY_END` matches in ``text``: a stop (``.!?;``), closing quotes or
    brackets and a space, or a line break. Found from the stops with string searches, which
    skip the words between them; the pattern is tried at every position."""
    if "\n" in text:
        return True
    size = len(text)
    for stop in ".!?;":
        at = text.find(stop)
        while at >= 0:
            after = at + 1
            while after < size and text[after] in _CLOSERS:
                after += 1
            if after < size and text[after].isspace():
                return True
            at = text.find(stop, at + 1)
    return False


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences at ``.!?;`` before a capital or digit, and at line breaks."""
    if not may_end(text):
        return [text] if text.strip() else []
    return [piece for piece in _SENTENCE_END.split(text) if piece.strip()]
