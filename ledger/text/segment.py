"""Sentence and clause boundaries as code point offsets into frozen text.

:func:`split_sentences` works in three steps:

1. **Blocks.** The range is cut at hard boundaries: blank lines, form feeds, Markdown heading
   lines and list item lines (``- x``, ``1. x``, ``(a) x``). A single newline inside a wrapped
   paragraph is not a boundary (see :mod:`ledger.text._lines`).
2. **Sentences.** Each block goes to BlingFire's finite-state sentence breaker, which handles
   abbreviations, initials, decimals, money, section and version numbers, ellipses and
   quotations. Newlines and tabs are shown to it as spaces, so a wrapped line reads as one.
3. **Repairs.** A small post-correction layer joins a piece back onto the one before it when
   the split cannot be a sentence end: the piece before is a bare list marker (``1.``) or ends
   with a title (``Dr.``, ``St.``, ``vs.``), or ends with a reference abbreviation followed by
   a number (``No. 5``, ``Fig. 3``, ``Jan. 2020``); or the piece starts with a lower-case
   letter or with ``, ; : ) ] }``. It also adds the one split BlingFire misses: before a title
   that follows a sentence end (``It was late. Dr. Smith arrived.``).

Quotations: a sentence that ends inside closing quotes keeps them (``He said "Stop." Then``
gives ``He said "Stop."`` and ``Then ...``). A quoted sentence followed by more of the same
sentence stays whole: ``He said "Stop. Now." and left.`` is one sentence, because the quoted
text does not end the reporting sentence (the repair layer also joins any split before a
lower-case continuation such as ``"Is it true?" she asked.``).

Every piece is trimmed of whitespace, so the sentences are ascending, non-overlapping and
cover each non-whitespace character of the range exactly once, whatever the breaker returns.
"""

from __future__ import annotations

import re

from ledger.text._blingfire import sentence_ends
from ledger.text._lines import blocks, trim

_AS_SPACE = str.maketrans({"\n": " ", "\t": " "})
_MARKER_ONLY = re.compile(
    r"(?:[-*+\u2022\u2023\u25e6\u2043]|\d{1,3}[.)]|[A-Za-z][.)]|\(\w{1,6}\)"
    r"|[ivxlcdm]{1,6}[.)]|[IVXLCDM]{1,6}[.)])"
)
_BEFORE_NUMBER = re.compile(
    r"(?i:(?:^|[^\w.])(?:No|Nos|Fig|Figs|Sec|Secs|Art|Arts|Ch|Chap|Vol|Vols|pp|p|Eq|Eqs|Tab|"
    r"Para|Paras|Pt|Pts|Ex|Exh|Rev|Ver|approx|ca|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|"
    r"Nov|Dec)\.)$"
)
_TITLES = (
    "Dr|Mr|Mrs|Ms|Mx|Messrs|Prof|St|Mt|Ft|Gen|Gov|Sen|Rep|Capt|Col|Lt|Sgt|Cmdr|Adm|Rev|Hon|"
    "Pres|Supt|Insp"
)
_STOP_THEN_TITLE = re.compile(r"[.?!][\"'\u201d\u2019)\]]*\s+((?:" + _TITLES + r")\.)\s+[A-Z]")
"""A sentence end directly before a title (``late. Dr. Smith``), which BlingFire misses."""
_WORD_BEFORE_STOP = re.compile(r"(?:^|\W)(?:" + _TITLES + r"|[A-Za-z])$")
"""The stop belongs to an abbreviation or an initial after all (``Mr. Dr. Who``, ``J. Mr.``)."""
_BARE_QUESTION = re.compile(r"[?!]$")
_TITLE = re.compile(r"(?:^|[^\w.])(?:" + _TITLES + r"|vs|cf|viz)\.$")
_CLAUSE_CUTS: tuple[tuple[re.Pattern[str], bool], ...] = (
    (re.compile(r";(?=\s)"), True),
    (re.compile(r":(?=\s)"), True),
    (
        re.compile(
            r",(?=\s+(?:and|but|or|nor|yet|so|which|who|whom|whose|whereas|while|although|"
            r"though|because|however|unless)\b)"
        ),
        True,
    ),
    (re.compile(r"(?<=\s)[-\u2013\u2014](?=\s)"), False),
    (re.compile(r",(?=\s)"), True),
)
"""Clause boundaries, strongest first; the flag says whether the cut falls after the match."""


def split_sentences(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Return the ``(start, end)`` of each sentence in ``text[start:end]``, in order.

    Sentences are trimmed of surrounding whitespace, never overlap, never span a hard boundary
    and together cover every non-whitespace character of the range exactly once.
    """
    stop = len(text) if end is None else end
    if not 0 <= start <= stop <= len(text):
        raise ValueError(f"range {start}:{stop} is outside a text of length {len(text)}")
    sentences: list[tuple[int, int]] = []
    for block_start, block_end in blocks(text, start, stop):
        sentences.extend(_sentences_in_block(text, block_start, block_end))
    return sentences


def split_clauses(text: str, start: int, end: int, limit: int) -> list[tuple[int, int]]:
    """Split the sentence ``text[start:end]`` into clauses of at most ``limit`` characters.

    Cuts are tried strongest first: ``;``, ``:``, a comma before a conjunction or relative
    pronoun (``, and``, ``, but``, ``, which`` ...), a spaced dash, then any comma. Adjacent
    pieces are packed back together while they fit. A run with no boundary that is still longer
    than ``limit`` stays whole. Pieces are trimmed, ascending and cover every non-whitespace
    character of the sentence.
    """
    if not 0 <= start <= end <= len(text):
        raise ValueError(f"range {start}:{end} is outside a text of length {len(text)}")
    if limit < 1:
        raise ValueError(f"limit must be positive; got {limit}")
    first, last = trim(text, start, end)
    if first >= last:
        return []
    return _split_clause(text, first, last, limit, 0)


def _sentences_in_block(text: str, start: int, end: int) -> list[tuple[int, int]]:
    chunk = text[start:end]
    if "\n" in chunk or "\t" in chunk:
        chunk = chunk.translate(_AS_SPACE)
    cuts = [start + offset for offset in sentence_ends(chunk)]
    pieces = _carve(text, start, end, [cut for cut in cuts if start < cut < end])
    repaired: list[tuple[int, int]] = []
    for piece in pieces:
        if repaired and _continues(text, repaired[-1], piece):
            repaired[-1] = (repaired[-1][0], piece[1])
        else:
            repaired.append(piece)
    cuts = [
        match.start(1)
        for match in _STOP_THEN_TITLE.finditer(text, start, end)
        if _WORD_BEFORE_STOP.search(text, max(start, match.start() - 8), match.start()) is None
    ]
    if not cuts:
        return repaired
    sentences: list[tuple[int, int]] = []
    for piece_start, piece_end in repaired:
        inside = [cut for cut in cuts if piece_start < cut < piece_end]
        sentences.extend(_carve(text, piece_start, piece_end, inside))
    return sentences


def _carve(text: str, start: int, end: int, cuts: list[int]) -> list[tuple[int, int]]:
    """Cut ``text[start:end]`` at ascending ``cuts`` into trimmed, non-empty pieces."""
    pieces: list[tuple[int, int]] = []
    previous = start
    for cut in [*sorted(set(cuts)), end]:
        first, last = trim(text, previous, cut)
        if first < last:
            pieces.append((first, last))
        previous = cut
    return pieces


def _continues(text: str, previous: tuple[int, int], piece: tuple[int, int]) -> bool:
    """Whether the break between ``previous`` and ``piece`` cannot be a sentence end."""
    head = text[piece[0]]
    tail = text[max(previous[0], previous[1] - 16) : previous[1]]
    if head in ",;:)]}":
        return True
    if head.islower():
        return _BARE_QUESTION.search(tail) is None
    if _MARKER_ONLY.fullmatch(text, previous[0], previous[1]) is not None:
        return True
    if _TITLE.search(tail) is not None:
        return True
    return head.isdigit() and _BEFORE_NUMBER.search(tail) is not None


def _split_clause(text: str, start: int, end: int, limit: int, tier: int) -> list[tuple[int, int]]:
    if end - start <= limit:
        return [(start, end)]
    for level in range(tier, len(_CLAUSE_CUTS)):
        pattern, after = _CLAUSE_CUTS[level]
        cuts = [
            match.end() if after else match.start() for match in pattern.finditer(text, start, end)
        ]
        pieces = _pack(_carve(text, start, end, [cut for cut in cuts if start < cut < end]), limit)
        if len(pieces) < 2:
            continue
        clauses: list[tuple[int, int]] = []
        for piece_start, piece_end in pieces:
            clauses.extend(_split_clause(text, piece_start, piece_end, limit, level + 1))
        return clauses
    return [(start, end)]


def _pack(pieces: list[tuple[int, int]], limit: int) -> list[tuple[int, int]]:
    """Join neighbouring pieces greedily while the joined span fits in ``limit``."""
    packed: list[tuple[int, int]] = []
    for piece in pieces:
        if packed and piece[1] - packed[-1][0] <= limit:
            packed[-1] = (packed[-1][0], piece[1])
        else:
            packed.append(piece)
    return packed
