"""Spans: the stable, citeable pieces of a frozen source version.

:func:`build_spans` walks the frozen text's paragraph blocks in order. A heading line is a
breadcrumb (it enters the ``heading_path`` of the spans below it) and is a span of its own only
when asked (``cite_headings``); the rest of a block is split into sentences
(:func:`~ledger.text.segment.split_sentences`).
Each of these *top-level* spans gets the next ``sent_index``; after the body come the table
cells placed by :func:`~ledger.text.tables.render_tables`, numbered on. A top-level span longer
than ``max_sentence_chars`` is followed in the result by its clause spans
(:func:`~ledger.text.segment.split_clauses`), which carry its ``span_id`` as ``parent_span_id``
and its ``sent_index``.

A span's id depends only on the source id, the version hash and its offsets
(:func:`span_id_for`), so rebuilding the spans of a version gives the same ids.
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from ledger.errors import SpanIntegrityError
from ledger.text._lines import blocks, trim
from ledger.text.normalize import Heading, Structure
from ledger.text.segment import split_clauses, split_sentences
from ledger.text.tables import CellPlacement

SPAN_ID_PREFIX = "sp_"
"""Every span id starts with this."""


@dataclass(frozen=True, slots=True)
class TableRef:
    """The table cell a span quotes: table id, zero-based row and column."""

    table_id: str
    row: int
    col: int


@dataclass(frozen=True, slots=True)
class Span:
    """A citeable piece of frozen text with where it sits in the document's structure.

    ``text == frozen[start:end]``. ``heading_path`` lists the titles of the enclosing headings,
    outermost first (a heading span includes itself; a table cell has its table's title).
    ``paragraph`` is the index of the block the span is in; ``page`` is 1-based when the text
    has form feeds and ``None`` otherwise.
    """

    span_id: str
    start: int
    end: int
    text: str
    sent_index: int
    parent_span_id: str | None
    heading_path: tuple[str, ...]
    paragraph: int
    page: int | None
    table_ref: TableRef | None = None
    envelope: str | None = None


@dataclass(frozen=True, slots=True)
class _Piece:
    start: int
    end: int
    paragraph: int
    heading: Heading | None = None
    cell: CellPlacement | None = None


def span_id_for(source_id: str, version_hash: str, start: int, end: int) -> str:
    """Return the deterministic id of the span ``start:end`` of one source version."""
    material = f"{source_id}\x00{version_hash}\x00{start}\x00{end}".encode()
    return SPAN_ID_PREFIX + hashlib.sha256(material).hexdigest()[:24]


# Over 60 lines on purpose: one walk over the body and table pieces in text order that
# keeps the heading path and the sentence index running across both.
def build_spans(
    source_id: str,
    version_hash: str,
    text: str,
    structure: Structure,
    cells: Sequence[CellPlacement] = (),
    max_sentence_chars: int = 400,
    cite_headings: bool = False,
) -> list[Span]:
    """Build the spans of frozen ``text``: headings, sentences, clauses and table cells.

    ``structure`` describes the body (from :func:`~ledger.text.normalize.normalise`); rendered
    tables may follow it in ``text`` and are located through ``cells``. Raises
    :class:`SpanIntegrityError` when a cell placement does not point at its value or spans
    would overlap.
    """
    if max_sentence_chars < 1:
        raise ValueError(f"max_sentence_chars must be positive; got {max_sentence_chars}")
    body_end = structure.paragraphs[-1][1] if structure.paragraphs else 0
    all_blocks = [*structure.paragraphs, *blocks(text, body_end, len(text))]
    block_starts = [start for start, _ in all_blocks]
    cell_pieces = [_cell_piece(text, cell, block_starts) for cell in cells]
    cell_pieces.sort(key=lambda piece: piece.start)
    skipped = {piece.paragraph for piece in cell_pieces}
    pieces = [
        piece
        for index, (start, end) in enumerate(structure.paragraphs)
        if index not in skipped
        for piece in _body_pieces(text, start, end, index, structure.headings)
    ]
    form_feeds = _form_feeds(text)
    spans: list[Span] = []
    path: list[Heading] = []
    sent_index = -1
    for piece in [*pieces, *cell_pieces]:
        if piece.heading is not None:
            while path and path[-1].level >= piece.heading.level:
                path.pop()
            path.append(piece.heading)
            if not cite_headings:
                continue
        sent_index += 1
        if piece.cell is None:
            titles = tuple(heading.title for heading in path)
        else:
            titles = (_table_title(text, all_blocks[piece.paragraph]),)
        parent = _span(source_id, version_hash, text, piece, sent_index, titles, form_feeds)
        spans.append(parent)
        if piece.cell is None and piece.end - piece.start > max_sentence_chars:
            clauses = split_clauses(text, piece.start, piece.end, max_sentence_chars)
            if len(clauses) > 1:
                spans.extend(
                    _span(
                        source_id,
                        version_hash,
                        text,
                        _Piece(start, end, piece.paragraph),
                        sent_index,
                        titles,
                        form_feeds,
                        parent.span_id,
                    )
                    for start, end in clauses
                )
    check_spans(text, spans)
    return spans


def check_spans(text: str, spans: Sequence[Span]) -> None:
    """Raise :class:`SpanIntegrityError` unless every span quotes ``text`` at its offsets,
    top-level spans ascend without overlapping and each child lies inside its parent."""
    parents: dict[str, Span] = {}
    previous_end = 0
    for span in spans:
        if not 0 <= span.start < span.end <= len(text) or text[span.start : span.end] != span.text:
            raise SpanIntegrityError(
                f"span {span.span_id} expected text {span.text!r} at {span.start}:{span.end}, "
                f"found {text[span.start : span.end]!r}"
            )
        if span.parent_span_id is None:
            if span.start < previous_end:
                raise SpanIntegrityError(
                    f"span {span.span_id} starts at {span.start}, inside the span before it "
                    f"which ends at {previous_end}"
                )
            previous_end = span.end
            parents[span.span_id] = span
            continue
        parent = parents.get(span.parent_span_id)
        if parent is None or not parent.start <= span.start < span.end <= parent.end:
            raise SpanIntegrityError(
                f"span {span.span_id} expected inside parent {span.parent_span_id}, found it "
                f"outside or before it"
            )


def _body_pieces(
    text: str, start: int, end: int, paragraph: int, headings: tuple[Heading, ...]
) -> list[_Piece]:
    """Heading lines of one paragraph block as single pieces, the rest as sentences."""
    starts = [heading.start for heading in headings]
    first = bisect.bisect_left(starts, start)
    last = bisect.bisect_left(starts, end)
    pieces: list[_Piece] = []
    cursor = start
    for heading in headings[first:last]:
        pieces.extend(
            _Piece(s, e, paragraph) for s, e in split_sentences(text, cursor, heading.start)
        )
        line_end = text.find("\n", heading.start, end)
        line_start, cursor = trim(text, heading.start, end if line_end < 0 else line_end)
        if line_start < cursor:
            pieces.append(_Piece(line_start, cursor, paragraph, heading))
        cursor = max(cursor, heading.start)
    pieces.extend(_Piece(s, e, paragraph) for s, e in split_sentences(text, cursor, end))
    return pieces


def _cell_piece(text: str, cell: CellPlacement, block_starts: list[int]) -> _Piece:
    value = text[cell.start : cell.end] if 0 <= cell.start < cell.end <= len(text) else ""
    if not value or f": {value}" not in cell.envelope:
        raise SpanIntegrityError(
            f"cell {cell.table_id}[{cell.row}][{cell.col}] expected its value at "
            f"{cell.start}:{cell.end}, found {value!r}"
        )
    block = max(0, bisect.bisect_right(block_starts, cell.start) - 1)
    return _Piece(cell.start, cell.end, block, cell=cell)


def _table_title(text: str, block: tuple[int, int]) -> str:
    """The first line of a rendered table block is its title."""
    line_end = text.find("\n", block[0], block[1])
    return text[block[0] : block[1] if line_end < 0 else line_end].strip()


def _form_feeds(text: str) -> list[int] | None:
    if "\f" not in text:
        return None
    found: list[int] = []
    position = text.find("\f")
    while position >= 0:
        found.append(position)
        position = text.find("\f", position + 1)
    return found


def _span(
    source_id: str,
    version_hash: str,
    text: str,
    piece: _Piece,
    sent_index: int,
    heading_path: tuple[str, ...],
    form_feeds: list[int] | None,
    parent_span_id: str | None = None,
) -> Span:
    cell = piece.cell
    return Span(
        span_id=span_id_for(source_id, version_hash, piece.start, piece.end),
        start=piece.start,
        end=piece.end,
        text=text[piece.start : piece.end],
        sent_index=sent_index,
        parent_span_id=parent_span_id,
        heading_path=heading_path,
        paragraph=piece.paragraph,
        page=None if form_feeds is None else 1 + bisect.bisect_left(form_feeds, piece.start),
        table_ref=None if cell is None else TableRef(cell.table_id, cell.row, cell.col),
        envelope=None if cell is None else cell.envelope,
    )
