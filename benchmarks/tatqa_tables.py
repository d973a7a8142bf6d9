"""The tables of TAT-QA read as a table extractor and the ledger would read them.

A table's cells cleaned (:func:`_clean_cell`) and padded into a grid, its header rows, the
blocks of a table that stacks a second period under the first (:func:`table_blocks`), the
paragraph sentence that captions it (:func:`caption`), and its cells as citeable spans with
envelopes (:func:`_table_spans`), for the claims of :mod:`benchmarks.tatqa_cases`.
"""

from __future__ import annotations

import re

from benchmarks.eval_cases import span
from ledger.gate import SpanFacts
from ledger.gate.lexicon.words import content_stems

_FIGURE = re.compile(r"\s*\(?\s*[-$€£]?\s*\d[\d,]*(?<!,)(?:\.\d+)?\s*%?\s*\)?\s*")
_EMPTY_VALUE = re.compile(
    r"\s*(?:none|nil|n/?a|[-\u2013\u2014]|\$\s*[-\u2013\u2014])\s*", re.IGNORECASE
)
"""A value cell that states no figure (``None``, ``N/A``, ``—``): a value, not a header."""
_CAPTION = re.compile(
    r"\bfollowing\b|\b(?:table|summari[sz]ed|set\s+forth|shown|presented|provided|detailed|"
    r"listed|reconciled)\s+below\b|\bbelow\s*:|\bas\s+follows\b|:\s*$",
    re.IGNORECASE,
)
"""A paragraph sentence that introduces a table (``The following table presents ...``,
``... were as follows:``): the table's caption."""


_SPACED_DIGITS = re.compile(r"\b\d(?: \d){3}\b")


def _clean_cell(cell: str) -> str:
    """A cell as a table extractor would give it: trimmed, ``2 0 1 8`` read as ``2018``."""
    return _SPACED_DIGITS.sub(lambda m: m.group(0).replace(" ", ""), cell.strip())


def _column_headers(rows: list[list[str]], width: int) -> list[str]:
    """Each value column's header: its own header cells, plus headers spanning it.

    A header row with a single label over the value columns (``Years Ended December 31,``)
    spans all of them; a row with several labels and gaps (``Domestic``, ``International``)
    spans each label over the empty columns to its right, as merged cells do.
    """
    parts: list[list[str]] = [[] for _ in range(width)]
    for row in rows:
        labels = [(c, row[c]) for c in range(1, width) if row[c]]
        if len(labels) == 1 and width > 2:
            for c in range(1, width):
                parts[c].append(labels[0][1])
            continue
        current = ""
        for c in range(1, width):
            current = row[c] or current
            if current:
                parts[c].append(current)
    return [" ".join(p) for p in parts]


def _header_rows(rows: list[list[str]]) -> int:
    """How many leading rows are headers: rows before the first row that writes a figure (a
    year is a header) or states an empty value (``None``, ``N/A``, ``—``). A row with only a
    column-0 label after a row of column labels opens a section, so it ends the header."""
    labelled = False
    for index, row in enumerate(rows):
        values = [c for c in row[1:] if c]
        if any(
            (_FIGURE.fullmatch(c) and not re.fullmatch(r"\d{4}", c)) or _EMPTY_VALUE.fullmatch(c)
            for c in values
        ):
            return index
        if labelled and row[0] and not values:
            return index
        labelled = labelled or bool(values)
    return len(rows)


def caption(table: list[list[str]], sentences: list[str]) -> str | None:
    """The paragraph sentence that introduces the table (``The following table presents the
    assets and liabilities of IMFT:``), as a report's reader sees its caption: of the sentences
    that introduce a table, the one sharing most words with the table's labels (the first on a
    tie); ``None`` when no sentence introduces one."""
    labels = content_stems(" ".join(" ".join(row) for row in table))
    found = [s.strip() for s in sentences if _CAPTION.search(s)]
    if not found:
        return None
    return max(found, key=lambda s: len(content_stems(s) & labels))


def _table_spans(table: list[list[str]], title: str | None = None) -> list[SpanFacts]:
    """Cells of a TAT-QA table as citeable spans with envelopes, as the ledger renders them.

    TAT-QA tables have no title: the ``title`` given (the table's caption) and the column-0
    labels of the header rows (``($ in millions)``, ``Years Ended December 31,``) stand in for
    it. A row with a label and no values opens a section whose label prefixes the rows below it
    (``Revenue: Product``). A table that stacks two periods repeats its header rows below the
    first block (``As of December 31, 2018`` over the same columns): from such a row on, the
    repeated header block heads the columns (:func:`_stacked_header`).
    """
    rows = _grid(table)
    width = len(rows[0]) if rows else 0
    header_rows = _header_rows(rows)
    notes = [r[0] for r in rows[:header_rows] if r[0]]
    title = " ".join([title, *notes] if title else notes) or "Table"
    out = []
    for head, body, end in _blocks(rows):
        headers = _column_headers(rows[head:body], width)
        section = ""
        for r, row in enumerate(rows[body:end], start=body):
            if row[0] and not any(row[1:]):
                section = row[0].rstrip(":")
                continue
            label = f"{section}: {row[0]}" if section and row[0] else row[0]
            for c, value in enumerate(row[1:], start=1):
                if not value:
                    continue
                envelope = f"{title} \u2014 {label}, {headers[c]}: {value}"
                out.append(span(f"t{r}.{c}", value, envelope))
    return out


def table_blocks(table: list[list[str]]) -> list[tuple[int, int, int]]:
    """The blocks of a TAT-QA table as ``(header start, body start, body end)`` row indices:
    the leading header rows over the body, and, in a table that stacks a second period under
    the first, each repeated header block (:func:`_stacked_header`) over the rows below it."""
    return _blocks(_grid(table))


def _grid(table: list[list[str]]) -> list[list[str]]:
    """The cells of a TAT-QA table as a table extractor gives them (:func:`_clean_cell`), each
    row padded to the width of the widest."""
    rows = [[_clean_cell(c) for c in row] for row in table]
    width = max((len(r) for r in rows), default=0)
    return [r + [""] * (width - len(r)) for r in rows]


def _blocks(rows: list[list[str]]) -> list[tuple[int, int, int]]:
    """:func:`table_blocks` of a table already made a grid (:func:`_grid`)."""
    head, body = 0, _header_rows(rows)
    blocks: list[tuple[int, int, int]] = []
    r = body
    while r < len(rows):
        if _stacked_header(rows[r]):
            blocks.append((head, body, r))
            head = r
            while r < len(rows) and _header_like(rows[r]):
                r += 1
            body = r
            continue
        r += 1
    blocks.append((head, body, len(rows)))
    return blocks


def _header_like(row: list[str]) -> bool:
    """A row with no label whose values are all headers (no figure but a year, no empty
    value such as ``—``)."""
    values = [c for c in row[1:] if c]
    return (
        not row[0]
        and bool(values)
        and not any(
            (_FIGURE.fullmatch(c) and not re.fullmatch(r"\d{4}", c)) or _EMPTY_VALUE.fullmatch(c)
            for c in values
        )
    )


def _stacked_header(row: list[str]) -> bool:
    """Whether a body row opens a repeated header block: header-like and naming a year
    (``As of December 31, 2018``, ``Fiscal 2018``); a row of words only (``Expenses:`` in the
    first value column) is a misplaced section label, and a date alone (``11/4/2024``) the
    wrapped end of the cell above."""
    return _header_like(row) and any(_HEADER_YEAR.search(c) for c in row[1:])


_HEADER_YEAR = re.compile(r"(?<![/\d])(?:19|20)\d\d(?![/\d])")


def header_row_count(table: list[list[str]]) -> int:
    """How many leading rows of a TAT-QA table are header rows (see :func:`_header_rows`)."""
    return _header_rows(_grid(table))
