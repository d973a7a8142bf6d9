"""Cells collected from an HTML or Markdown table, made into a :class:`Table`.

A cell spanning columns (``colspan``) holds its text in its first column and leaves the others
blank, so that a header spanning columns reaches them by the blank-header rule of
:mod:`ledger.text.tables`; a cell spanning rows (``rowspan``) leaves the cells below it blank.
Leading rows of header cells (``th``, or a Markdown table's first row) are header rows; a table
with none gets one blank header row.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ledger.text.tables import Table, clean_cell

MAX_SPAN = 100
"""The most columns or rows one cell may span (larger ``colspan``/``rowspan`` are cut)."""


@dataclass
class TableBuilder:
    """Rows of (text, is_header, colspan, rowspan) cells, in document order."""

    title: str = ""
    caption: list[str] = field(default_factory=list)
    rows: list[list[tuple[str, bool, int, int]]] = field(default_factory=list)
    layout: bool = False
    """Set when a cell holds a block element or a table: the table lays out a page."""

    def start_row(self) -> None:
        """Begin a row."""
        self.rows.append([])

    def add_cell(self, text: str, header: bool, colspan: int = 1, rowspan: int = 1) -> None:
        """Add a cell to the current row (starting one when there is none)."""
        if not self.rows:
            self.start_row()
        span = (max(1, min(colspan, MAX_SPAN)), max(1, min(rowspan, MAX_SPAN)))
        self.rows[-1].append((clean_cell(text), header, *span))

    def text_lines(self) -> list[str]:
        """The caption and each non-blank cell as a paragraph, for a table that stays text."""
        texts = [" ".join(self.caption).strip(), *(cell[0] for row in self.rows for cell in row)]
        lines: list[str] = []
        for text in texts:
            if text:
                lines.extend([text, ""])
        return lines

    def build(self) -> Table | None:
        """The table (id ``doc``, renamed by the caller), or ``None`` when it has no cells."""
        grid: list[list[str]] = []
        header_flags: list[bool] = []
        pending: dict[tuple[int, int], bool] = {}  # (row, col) covered by a rowspan above
        for r, cells in enumerate(row for row in self.rows if row):
            out: list[str] = []
            col = 0
            for text, _, colspan, rowspan in cells:
                while pending.pop((r, col), False):
                    out.append("")
                    col += 1
                out.extend([text] + [""] * (colspan - 1))
                for below in range(1, rowspan):
                    for c in range(col, col + colspan):
                        pending[(r + below, c)] = True
                col += colspan
            grid.append(out)
            header_flags.append(all(cell[1] for cell in cells))
        if not grid:
            return None
        width = max(len(row) for row in grid)
        grid = [row + [""] * (width - len(row)) for row in grid]
        count = 0
        while count < len(grid) - 1 and header_flags[count]:
            count += 1
        headers = grid[:count] or [[""] * width]
        return Table(
            table_id="doc",
            title=clean_cell(self.title),
            header_rows=tuple(tuple(row) for row in headers),
            rows=tuple(tuple(row) for row in grid[count:]),
            caption=clean_cell(" ".join(self.caption)),
        )
