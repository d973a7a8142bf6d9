"""Terms of claims and spans as re-attribution sees them: lower-cased, stemmed, no stop words.

A term is a run of letters or a number after NFKC and case folding. Numbers keep their digits
and decimal point (``1,200`` and ``1200`` meet; ``3.5`` stays one term) because figures and years
are the most discriminating words a citation can carry. The possessive ``'s`` is dropped, stop
words are dropped, and :func:`stem` strips a few inflectional suffixes so that ``elected``,
``elects`` and ``electing`` meet; it does not try to produce dictionary words.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from ledger.text.stemming import INFLECTIONS, strip_suffix

_TERM = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+")
_POSSESSIVE = re.compile(r"['\u2019]s\b")
_THOUSANDS = re.compile(r",(?=\d{3}(?:\D|$))")

_STOP_TEXT = """
    a about above after again against all almost also although am among an and another any
    are as at be became because become been before being below between both but by can could
    did do does doing done down during each either else even ever every few for from further
    had has have having he her here hers herself him himself his how however i if in into is
    it its itself just least less let like made make many may me might more most much must
    my myself neither no nor not now of off often on once one only onto or other others our
    ours ourselves out over own per quite rather s same several shall she should since so
    some such t than that the their theirs them themselves then there these they this those
    though through thus to too under until up upon us very via was we well were what
    whatever when where whether which while who whom whose why will with within without
    would yet you your yours yourself yourselves
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())
"""Function words: they say nothing about which span a claim came from."""

_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("ational", "ate"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ization", "ize"),
    ("ingly", ""),
    *INFLECTIONS,
)
"""A few derivational suffixes, then the inflections, with their replacements."""


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light stem of a lower-case ``word`` (:func:`~ledger.text.stemming.strip_suffix`)."""
    stemmed = strip_suffix(word, _SUFFIXES)
    return word if stemmed is None else stemmed


def terms(text: str) -> list[str]:
    """The stemmed content terms of ``text`` in order, repeats kept (BM25 counts them)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    folded = _THOUSANDS.sub("", _POSSESSIVE.sub("", folded))
    return [stem(token) for token in _TERM.findall(folded) if token not in STOP_WORDS]


@lru_cache(maxsize=16384)
def term_set(text: str) -> frozenset[str]:
    """The distinct content terms of ``text``, cached: span texts recur across claims."""
    return frozenset(terms(text))
