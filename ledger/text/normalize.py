"""Conservative normalisation of a source into frozen plain text and its structure.

The frozen text is what every offset in the ledger points into, so normalisation changes only
what carries no meaning for a reader and never reflows, re-quotes or re-dashes text:

1. a leading byte-order mark is removed; CRLF and lone CR become LF;
2. the format is reduced to plain lines (:mod:`ledger.text._markdown`, :mod:`ledger.text._html`;
   text/plain is taken as it is), with heading lines marked by level; the document's HTML and
   Markdown tables are taken out of the text and kept in :attr:`Structure.tables`, with ids
   ``doc-1``, ``doc-2`` ... in document order;
3. C0 and C1 control characters and DEL are removed, except ``\\n``, ``\\t`` and ``\\f``; a form
   feed is a page break and is kept;
4. each line is put in Unicode NFC and loses its trailing whitespace (form feeds excepted);
5. blank lines at the start and end are removed and runs of more than two blank lines are cut to
   two.

:class:`Structure` then records heading lines, paragraph blocks and page breaks as offsets into
the result. Normalising the frozen text again as text/plain returns it unchanged.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace

from ledger.errors import InvalidInput
from ledger.text._html import html_document
from ledger.text._lines import MarkedLine, blocks
from ledger.text._markdown import markdown_document
from ledger.text.tables import Table

MEDIA_TYPES = ("text/plain", "text/markdown", "text/html")
"""The media types :func:`normalise` accepts."""

MAX_BLANK_LINES = 2
"""The longest run of blank lines kept in frozen text."""

_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")
_TRAILING_SPACE = re.compile(r"[^\S\f]+$")


@dataclass(frozen=True, slots=True)
class Heading:
    """A heading line of the frozen text: where it starts, its level (1-6) and its title."""

    start: int
    level: int
    title: str


@dataclass(frozen=True, slots=True)
class Structure:
    """Layout facts about a frozen text, all as code point offsets into it.

    ``paragraphs`` are the ``(start, end)`` of every block of non-blank text, trimmed of
    whitespace, in order, non-overlapping and together covering every non-whitespace character.
    A block ends at a blank line, a form feed, a heading line and a list item line.
    ``page_breaks`` are the offsets of the form feeds: page ``n + 1`` starts after the ``n``-th.
    ``tables`` are the tables of an HTML or Markdown document, not part of the text (they are
    rendered after it, see :func:`ledger.text.tables.render_tables`).
    """

    headings: tuple[Heading, ...]
    paragraphs: tuple[tuple[int, int], ...]
    page_breaks: tuple[int, ...]
    tables: tuple[Table, ...] = ()


def normalise(raw: str, media_type: str) -> tuple[str, Structure]:
    """Normalise ``raw`` of ``media_type`` into frozen text and its :class:`Structure`.

    Raises :class:`~ledger.errors.InvalidInput` for a media type outside :data:`MEDIA_TYPES`
    (field ``media_type``) and for a source with nothing but whitespace left (field ``text``,
    rule ``empty``).
    """
    if media_type not in MEDIA_TYPES:
        raise InvalidInput(
            "media_type",
            "supported",
            f"media_type must be one of {', '.join(MEDIA_TYPES)}; got {media_type!r}",
        )
    text = raw.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    tables: list[Table] = []
    if media_type == "text/markdown":
        # CommonMark reads NUL as U+FFFD; controls go before parsing, as they would after.
        lines, tables = markdown_document(_CONTROLS.sub("", text))
    elif media_type == "text/html":
        lines, tables = html_document(text)
    else:
        lines = [MarkedLine(line) for line in text.split("\n")]
    frozen, headings = _freeze(lines)
    if (not frozen or frozen.isspace()) and not tables:
        raise InvalidInput("text", "empty", "the source holds no text once normalised")
    structure = Structure(
        headings=tuple(headings),
        paragraphs=tuple(
            blocks(frozen, 0, len(frozen), frozenset(heading.start for heading in headings))
        ),
        page_breaks=_positions(frozen, "\f"),
        tables=tuple(
            replace(table, table_id=f"doc-{number}") for number, table in enumerate(tables, start=1)
        ),
    )
    return frozen, structure


def _positions(text: str, char: str) -> tuple[int, ...]:
    """Offsets of every ``char`` in ``text`` (found with ``str.find``, not a per-char loop)."""
    found: list[int] = []
    index = text.find(char)
    while index != -1:
        found.append(index)
        index = text.find(char, index + 1)
    return tuple(found)


def _clean(line: str) -> str:
    line = unicodedata.normalize("NFC", _CONTROLS.sub("", line))
    return _TRAILING_SPACE.sub("", line)


def _freeze(lines: list[MarkedLine]) -> tuple[str, list[Heading]]:
    """Clean each line, limit blank runs, join with LF and locate the heading lines."""
    kept: list[MarkedLine] = []
    blanks = 0
    for line in lines:
        text = _clean(line.text)
        if line.level:
            text = text.strip()
        if not text:
            blanks += 1
            continue
        if kept:
            kept.extend([MarkedLine("")] * min(blanks, MAX_BLANK_LINES))
        blanks = 0
        kept.append(MarkedLine(text, line.level))
    headings: list[Heading] = []
    offset = 0
    for line in kept:
        if line.level and not line.text.isspace():
            headings.append(Heading(offset, line.level, line.text))
        offset += len(line.text) + 1
    return "\n".join(line.text for line in kept), headings
