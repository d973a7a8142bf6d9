"""What the content checks read from one text, worked out once and shared between them.

A :class:`Reading` holds a text's tokens, dates, amounts and anchors. :func:`read_claim_text`
reads a claim afresh on every call (claims are new text); :func:`read_span` reads a span text
once and keeps the result in a bounded LRU cache keyed by the text, since span texts are
immutable and recur across the claims of a receipt.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from ledger.gate.anchors.numbers import (
    Amount,
    DateMention,
    _overlaps,
    context_scale,
    dates,
    digit_runs,
    numbers,
)
from ledger.gate.lexicon.words import STOP_WORDS, footnoted_stems, sentences, stem, stems_of, tokens
from ledger.gate.normalize import normalise_quote

SPAN_CACHE_SIZE = 4096
"""How many distinct span texts keep their reading (and each per-span cache its entries):
about 8.6 KB a sentence over all of them, measured with ``tracemalloc``, so 35 MB per process
when full."""

_URL = re.compile(r"\b(?:https?://|www\.)[^\s<>\"')\]]+", re.IGNORECASE)
_SCHEME = re.compile(r"^https?://")
_QUOTED = re.compile(r"\"([^\"]{3,200})\"")
_IDENTIFIERS = re.compile(
    "|".join(
        (
            r"\b[A-Z]{2}[A-Z0-9]{9}\d\b",  # ISIN (ISO 6166)
            r"\b(?:NYSE|NASDAQ|Nasdaq|LSE|TSX|ASX|HKEX|AMEX)\s*:\s*[A-Z][A-Z.]{0,5}\b",
            r"§+\s*\d+(?:\.\d+)*(?:\([a-z0-9]+\))*",
            r"\b\d+(?:\.\d+){2,}(?:\([a-z0-9]+\))*|\b\d+(?:\.\d+)+\([a-z0-9]+\)",
            r"\b(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]*[A-Z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*\b",
            r"\b[A-Z]{2,}-\d+[A-Za-z0-9-]*\b",
        )
    )
)
"""Identifiers, most specific first: ISINs, exchange tickers, section references (``§ 12``,
``4.2.1(b)``), letter-digit codes (``A320``, ``FY2023``, ``COVID-19``) and ``ABC-123``."""
_IDENTIFIER_HINT = re.compile(r"[A-Za-z(]|\..*\.")
"""What every identifier without ``:`` or ``§`` holds: an ASCII letter (ISINs, codes,
``ABC-123``), a bracket (``4.2(b)``) or two points (``4.2.1``); a chunk of digits without any
(``12.6``, ``2019.``) is not tried."""
_DIGIT_CHUNK = re.compile(r"(?<!\S)[^\s\d]*+\d\S*")
"""A whitespace-free run that holds a digit. Tried only where a run starts, and without
backtracking over the letters before its first digit: trying every position of a long word,
each time back to its start, made this scan quadratic in the word's length."""
_NOT_CUES = re.compile(
    r"\bNO\b\.?|\b[Nn]o\.(?=\s*\d)|\bMay(?=\s+\d)|(?<=[\w,]\s)May\b"
    r"|(?i:\bin\s+(?:[$€£]\s*|u\.?s\.?\s+)?(?:thousands|millions|billions)\b[^;:()\n]{0,40}?"
    r"\bexcept\b)"
)
"""``NO.``/``No. 5`` (number), ``May 31`` and a capitalised ``May`` inside a sentence (month)
are not negation or hedging cues; nor is the ``except`` of a unit note (``in millions, except
per share amounts``), which says which figures the scale applies to, not that anything is
false."""


@dataclass(frozen=True, slots=True)
class Anchors:
    """The anchors of one text, in normal form (see :mod:`ledger.gate.anchors.check`)."""

    amounts: tuple[Amount, ...]
    dates: tuple[str, ...]
    identifiers: tuple[str, ...]
    urls: tuple[str, ...]
    quoted: tuple[str, ...]
    scale: float | None

    @property
    def count(self) -> int:
        """How many anchors there are in all."""
        return (
            len(self.amounts)
            + len(self.dates)
            + len(self.identifiers)
            + len(self.urls)
            + len(self.quoted)
        )


@dataclass(frozen=True, slots=True)
class Reading:
    """One text as the checks see it.

    ``tokens`` are the word tokens (:func:`ledger.gate.lexicon.words.tokens`); ``cue_tokens`` the
    tokens with month and number-sign uses of ``May`` and ``No.`` removed (for the polarity
    check); ``amounts`` every amount outside dates (the computation check reads them);
    ``anchors`` the anchors, whose amounts also leave out those inside identifiers and URLs.
    """

    text: str
    tokens: tuple[str, ...]
    cue_tokens: tuple[str, ...]
    dates: tuple[DateMention, ...]
    amounts: tuple[Amount, ...]
    anchors: Anchors

    def content_stems(self, ignore: frozenset[str] = frozenset()) -> frozenset[str]:
        """Stems of the words that can carry evidence, less the ``ignore`` words."""
        return stems_of(self.tokens, ignore)


@dataclass(frozen=True, slots=True)
class SpanReading:
    """A span text's :class:`Reading` and what the checks compare a claim against.

    ``stems``: its content stems (for a text of several lines, as a cell's text with its
    envelope is, with those of footnoted label words: ``schemes1`` gives ``scheme``);
    ``sentence_tokens``: the cue tokens of each sentence with
    their stems (``None`` for stop words); ``sentence_stems``: the set of those stems for each
    sentence; ``identifier_key``: the text upper-cased without whitespace; ``quoted_key``: the
    text normalised and case-folded.
    """

    reading: Reading
    stems: frozenset[str]
    sentence_tokens: tuple[tuple[tuple[str, str | None], ...], ...]
    sentence_stems: tuple[frozenset[str], ...]
    identifier_key: str
    quoted_key: str


def identifier_key(text: str) -> str:
    """An identifier's comparison form: upper-cased, without whitespace."""
    return "".join(text.split()).upper()


def _url_key(text: str) -> str:
    key = _SCHEME.sub("", text.lower().rstrip(".,;:/"))
    return key.removeprefix("www.")


def _identifier_matches(
    text: str, runs: tuple[tuple[int, int], ...] | None = None
) -> Iterator[re.Match[str]]:
    """The identifier matches of ``text``. Only tickers and section signs span a space, so
    the pattern runs on the whole text only when ``:`` or ``§`` occurs, and otherwise on each
    space-free chunk that holds a digit and, as every other identifier does, an ASCII letter,
    a bracket or two points (:data:`_IDENTIFIER_HINT`); ``runs``: the text's
    :func:`~ledger.gate.anchors.numbers.digit_runs`, when the caller already has them."""
    if ":" in text or "§" in text:
        yield from _IDENTIFIERS.finditer(text)
        return
    for start, end in digit_chunks(text, runs):
        if _IDENTIFIER_HINT.search(text, start, end):
            yield from _IDENTIFIERS.finditer(text, start, end)


def digit_chunks(
    text: str, runs: tuple[tuple[int, int], ...] | None = None
) -> Iterator[tuple[int, int]]:
    """Where each whitespace-free run of ``text`` that holds a digit starts and ends: the
    matches of :data:`_DIGIT_CHUNK`, found from the runs of digits (a claim has few; ``runs``:
    the text's :func:`~ledger.gate.anchors.numbers.digit_runs`, when the caller already has them)
    rather than by trying the pattern at every position."""
    end = 0
    size = len(text)
    for at, run_end in digit_runs(text) if runs is None else runs:
        if at < end:
            continue
        start = at
        while start and not text[start - 1].isspace():
            start -= 1
        end = run_end
        while end < size and not text[end].isspace():
            end += 1
        yield start, end


def cue_tokens(text: str) -> list[str]:
    """The tokens of ``text`` without the month ``May`` and the number sign ``No.``."""
    # Most texts hold none of the words the pattern needs, and then it would change nothing.
    if "May" in text or "NO" in text or "No." in text or "no." in text or "except" in text.lower():
        return tokens(_NOT_CUES.sub(" ", text))
    return tokens(text)


def read_text(text: str, *, scale: bool = False, words: bool = True) -> Reading:
    """Read ``text``: tokens, dates, amounts and anchors, each worked out once; the scale the
    text declares for its figures (``in thousands``) only when ``scale`` is set (for spans:
    a claim's own figures carry their scale words); no tokens when ``words`` is unset (a
    claim the alignment reads: only its anchors are wanted)."""
    # The runs of digits are found once, for the dates, amounts and identifiers alike.
    runs = digit_runs(text)
    found_dates = dates(text, runs)
    amounts = numbers(text, found_dates=found_dates, runs=runs)
    masked: list[tuple[int, int]] = []
    urls = []
    if "www." in text or "://" in text:
        for match in _URL.finditer(text):
            urls.append(_url_key(match.group(0)))
            masked.append(match.span())
    identifiers = []
    for match in _identifier_matches(text, runs):
        if masked and _overlaps(match.start(), match.end(), masked):
            continue
        identifiers.append(identifier_key(match.group(0)))
        masked.append(match.span())
    anchor_amounts = amounts
    if masked:
        anchor_amounts = [
            a for a in amounts if not any(a.start < e and s < a.end for s, e in masked)
        ]
    quoted: list[str] = []
    if '"' in text or "\u201c" in text or "\u00ab" in text or "\u201e" in text:
        quoted = [
            normalise_quote(m.group(1)).casefold() for m in _QUOTED.finditer(normalise_quote(text))
        ]
    anchors = Anchors(
        amounts=tuple(anchor_amounts),
        dates=tuple([d.key for d in found_dates]),
        identifiers=tuple(identifiers),
        urls=tuple(urls),
        quoted=tuple(quoted),
        scale=context_scale(text) if scale else None,
    )
    if not words:
        return Reading(text, (), (), tuple(found_dates), tuple(amounts), anchors)
    found = tokens(text)
    masked_cues = (
        "May" in text or "NO" in text or "No." in text or "no." in text or "xcept" in text
    ) and _NOT_CUES.search(text)
    cues = tuple(cue_tokens(text)) if masked_cues else tuple(found)
    return Reading(text, tuple(found), cues, tuple(found_dates), tuple(amounts), anchors)


@lru_cache(maxsize=SPAN_CACHE_SIZE)
def read_span(text: str) -> SpanReading:
    """Read a span text once; later calls with the same text get the same reading."""
    reading = read_text(text, scale=True)
    sentence_tokens = tuple(
        tuple((w, None if w in STOP_WORDS else stem(w)) for w in cue_tokens(sentence))
        for sentence in sentences(text)
    )
    return SpanReading(
        reading=reading,
        stems=reading.content_stems() | footnoted_stems(text)
        if "\n" in text
        else reading.content_stems(),
        sentence_tokens=sentence_tokens,
        sentence_stems=tuple(
            frozenset(s for _, s in words if s is not None) for words in sentence_tokens
        ),
        identifier_key=identifier_key(text),
        quoted_key=normalise_quote(text).casefold(),
    )
