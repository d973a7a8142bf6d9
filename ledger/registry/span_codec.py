"""Compact storage of a version's spans, and their exact reconstruction.

Spans are stored in the version event as integer rows (``ledger.registry.source.SPAN_COLUMNS``)
plus a list of heading paths and a list of table cells. Reconstruction re-derives each span's text
from the frozen text and its id from (source id, version hash, offsets), so a stored event
cannot carry a span whose text disagrees with its offsets.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ledger.errors import SpanIntegrityError
from ledger.text.spans import Span, TableRef, span_id_for


def encode_spans(spans: Sequence[Span]) -> tuple[list[list[str]], list[list[int]], list[list[Any]]]:
    """Return ``(heading_paths, span_rows, cell_rows)`` for a version event."""
    path_index: dict[tuple[str, ...], int] = {}
    heading_paths: list[list[str]] = []
    position = {span.span_id: index for index, span in enumerate(spans)}
    rows: list[list[int]] = []
    cells: list[list[Any]] = []
    for index, span in enumerate(spans):
        path = -1
        if span.heading_path:
            path = path_index.setdefault(span.heading_path, len(heading_paths))
            if path == len(heading_paths):
                heading_paths.append(list(span.heading_path))
        parent = -1 if span.parent_span_id is None else position[span.parent_span_id]
        rows.append(
            [
                span.start,
                span.end,
                span.sent_index,
                parent,
                span.paragraph,
                -1 if span.page is None else span.page,
                path,
            ]
        )
        if span.table_ref is not None:
            ref = span.table_ref
            cells.append([index, ref.table_id, ref.row, ref.col, span.envelope or ""])
    return heading_paths, rows, cells


def decode_spans(
    source_id: str,
    version_hash: str,
    text: str,
    heading_paths: Sequence[Sequence[str]],
    rows: Sequence[Sequence[int]],
    cells: Sequence[Sequence[Any]],
) -> list[Span]:
    """Rebuild the full spans of a version from its stored rows."""
    ids = [span_id_for(source_id, version_hash, row[0], row[1]) for row in rows]
    table_refs: dict[int, tuple[TableRef, str]] = {
        int(cell[0]): (TableRef(str(cell[1]), int(cell[2]), int(cell[3])), str(cell[4]))
        for cell in cells
    }
    spans: list[Span] = []
    for index, (start, end, sent_index, parent, paragraph, page, path) in enumerate(rows):
        if not 0 <= start < end <= len(text) or parent >= index:
            raise SpanIntegrityError(f"stored span {index} has impossible offsets or parent")
        table = table_refs.get(index)
        spans.append(
            Span(
                span_id=ids[index],
                start=start,
                end=end,
                text=text[start:end],
                sent_index=sent_index,
                parent_span_id=None if parent < 0 else ids[parent],
                heading_path=tuple(heading_paths[path]) if path >= 0 else (),
                paragraph=paragraph,
                page=None if page < 0 else page,
                table_ref=None if table is None else table[0],
                envelope=None if table is None else table[1],
            )
        )
    return spans
