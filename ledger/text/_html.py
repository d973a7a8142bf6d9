"""HTML to plain lines and tables with the standard library's :class:`html.parser.HTMLParser`.

``script``, ``style``, ``head`` (with ``title``), ``template`` and ``noscript`` are dropped.
``h1``-``h6`` become heading lines marked with their level. Block elements (``p``, ``div``,
``li``, ``blockquote``, ``section`` ...) end a paragraph with a blank line; ``br``, ``dt`` and
``dd`` end a line. A ``table`` is taken out of the text and returned as a table (see
:mod:`ledger.text._table_builder`): its ``caption``, its leading rows of ``th`` cells as header
rows, ``colspan``/``rowspan`` honoured, the last heading before it as its title. A table whose
cells hold block elements (paragraphs, lists, headings) or another table lays out a page rather
than data: it stays text, each cell a paragraph. Runs of whitespace collapse to one space as a
browser would, except inside ``pre``. Character references are unescaped by the parser.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from ledger.text._lines import MarkedLine
from ledger.text._table_builder import TableBuilder
from ledger.text.tables import Table

_DROPPED = frozenset({"script", "style", "head", "title", "template", "noscript"})
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_PARAGRAPH_BLOCKS = frozenset(
    {
        "p", "div", "li", "ul", "ol", "dl", "blockquote", "pre", "table", "thead", "tbody",
        "tfoot", "section", "article", "header", "footer", "nav", "aside", "main", "figure",
        "figcaption", "address", "form", "fieldset", "hr", "caption", "details", "summary",
        "body", "html",
    }
)  # fmt: skip
_LINE_BREAKS = frozenset({"br", "dt", "dd"})
_CELLS = frozenset({"td", "th"})
_LAYOUT_BLOCKS = _PARAGRAPH_BLOCKS - {"table", "thead", "tbody", "tfoot", "caption", "br"}
"""Block elements that make a table a page layout rather than data when a cell holds one."""
_VOID = frozenset({"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "wbr"})
_SPACES = re.compile(r"[ \t\n\r]+")  # HTML white space; \f is kept as a page break


class _TextExtractor(HTMLParser):
    """Collects marked lines while the parser walks the document."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[MarkedLine] = []
        self._parts: list[str] = []
        self._dropped_depth = 0
        self._pre_depth = 0
        self._heading = 0
        self._last_heading = ""
        self.tables: list[Table] = []
        self._table: TableBuilder | None = None
        self._table_depth = 0
        self._cell: list[str] | None = None
        self._cell_shape = (False, 1, 1)
        self._in_caption = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Open an element: enter dropped or preformatted content, or break a line."""
        if tag in _DROPPED:
            if tag not in _VOID:
                self._dropped_depth += 1
            return
        if self._dropped_depth:
            return
        if tag == "table" or self._table_depth:
            self._table_tag(tag, attrs)
            return
        if tag in _HEADINGS:
            self._end_block()
            self._heading = _HEADINGS[tag]
        elif tag in _PARAGRAPH_BLOCKS:
            self._end_block()
            self._pre_depth += tag == "pre"
        elif tag in _LINE_BREAKS:
            self._end_line()

    def handle_endtag(self, tag: str) -> None:
        """Close an element: leave dropped content, finish a heading or a block."""
        if tag in _DROPPED:
            self._dropped_depth = max(0, self._dropped_depth - 1)
            return
        if self._dropped_depth:
            return
        if self._table_depth:
            self._table_end_tag(tag)
            return
        if tag in _HEADINGS and self._heading:
            self._end_block()
        elif tag in _PARAGRAPH_BLOCKS:
            self._pre_depth = max(0, self._pre_depth - (tag == "pre"))
            self._end_block()
        elif tag in _LINE_BREAKS and tag != "br":
            self._end_line()

    def handle_data(self, data: str) -> None:
        """Keep text outside dropped elements, collapsing whitespace outside ``pre``."""
        if self._dropped_depth:
            return
        if self._table_depth:
            if self._cell is not None:
                self._cell.append(data)
            elif self._in_caption and self._table is not None:
                self._table.caption.append(data)
            return
        if self._pre_depth:
            first, *rest = data.split("\n")
            self._parts.append(first)
            for line in rest:
                self._end_line(keep_blank=True)
                self._parts.append(line)
        else:
            self._parts.append(_SPACES.sub(" ", data))

    def _table_tag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """An opening tag inside (or opening) a table."""
        if tag == "table":
            self._table_depth += 1
            if self._table_depth == 1:
                self._end_block()
                self._table = TableBuilder(title=self._last_heading)
                return
        if self._cell is not None and self._table is not None and tag not in _CELLS:
            if tag == "table" or tag in _HEADINGS or tag in _LAYOUT_BLOCKS:
                self._table.layout = True
            if tag in _PARAGRAPH_BLOCKS or tag in _HEADINGS or tag in ("tr", "br", "table"):
                self._cell.append(" ")
        if self._table_depth > 1 or self._table is None:
            if self._cell is not None and tag in _CELLS:
                self._cell.append(" ")
            return
        if tag == "caption":
            self._in_caption = True
        elif tag == "tr":
            self._end_cell()
            self._table.start_row()
        elif tag in _CELLS:
            self._end_cell()
            named = dict(attrs)
            self._cell = []
            self._cell_shape = (
                tag == "th",
                _span(named.get("colspan")),
                _span(named.get("rowspan")),
            )
        elif tag == "br" and self._cell is not None:
            self._cell.append(" ")

    def _table_end_tag(self, tag: str) -> None:
        """A closing tag inside a table; the outermost ``</table>`` finishes the table."""
        if tag == "table":
            self._table_depth -= 1
            if self._table_depth == 0 and self._table is not None:
                self._end_cell()
                if self._table.layout:
                    self.lines.extend(MarkedLine(line) for line in self._table.text_lines())
                    self._end_block()
                else:
                    built = self._table.build()
                    if built is not None:
                        self.tables.append(built)
                self._table = None
                self._in_caption = False
            return
        if self._table_depth > 1:
            return
        if tag == "caption":
            self._in_caption = False
        elif tag in _CELLS or tag == "tr":
            self._end_cell()

    def _end_cell(self) -> None:
        if self._cell is not None and self._table is not None:
            self._table.add_cell("".join(self._cell), *self._cell_shape)
        self._cell = None

    def parse_marked_section(self, i: int, report: bool = True) -> int:
        """Skip a malformed ``<![...`` section instead of failing (the stdlib asserts)."""
        try:
            return super().parse_marked_section(i, report)
        except AssertionError:
            return self._skip_to_gt(i)

    def parse_declaration(self, i: int) -> int:
        """Skip a malformed ``<!...`` declaration instead of failing (the stdlib asserts)."""
        try:
            return super().parse_declaration(i)
        except AssertionError:
            return self._skip_to_gt(i)

    def _skip_to_gt(self, i: int) -> int:
        end = self.rawdata.find(">", i + 2)
        return len(self.rawdata) if end < 0 else end + 1

    def close(self) -> None:
        """Flush the last line (and an unclosed table) once the input is complete."""
        super().close()
        while self._table_depth:
            self._table_end_tag("table")
        self._end_block()

    def _end_line(self, keep_blank: bool = False) -> None:
        text = "".join(self._parts)
        self._parts = []
        if self._pre_depth:
            if text.strip() or keep_blank:
                self.lines.append(MarkedLine(text))
            return
        text = text.strip(" ")
        if text.strip():
            level = self._heading
            if level:
                self._last_heading = text.strip()
            self.lines.append(MarkedLine(text.strip() if level else text, level))

    def _end_block(self) -> None:
        self._end_line()
        self._heading = 0
        if self.lines and self.lines[-1].text:
            self.lines.append(MarkedLine(""))


def _span(value: str | None) -> int:
    """A ``colspan``/``rowspan`` value; anything but a positive integer counts as 1."""
    try:
        return max(1, int(value or "1"))
    except ValueError:
        return 1


def html_document(text: str, heading: str = "") -> tuple[list[MarkedLine], list[Table]]:
    """Convert an HTML document or fragment into marked plain lines and its tables.

    ``heading`` is the heading in force where the fragment starts (the title of a table that
    comes before any heading of the fragment).
    """
    extractor = _TextExtractor()
    extractor._last_heading = heading
    extractor.feed(text)
    extractor.close()
    return extractor.lines, extractor.tables
