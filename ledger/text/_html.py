"""HTML to plain lines with the standard library's :class:`html.parser.HTMLParser`.

``script``, ``style``, ``head`` (with ``title``), ``template`` and ``noscript`` are dropped.
``h1``-``h6`` become heading lines marked with their level. Block elements (``p``, ``div``,
``li``, ``blockquote``, ``table``, ``section`` ...) end a paragraph with a blank line; ``br``,
``tr``, ``dt`` and ``dd`` end a line; table cells in a row are joined with `` | ``. Runs of
whitespace collapse to one space as a browser would, except inside ``pre``. Character
references are unescaped by the parser.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from ledger.text._lines import MarkedLine

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
_LINE_BREAKS = frozenset({"br", "tr", "dt", "dd"})
_CELLS = frozenset({"td", "th"})
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
        self._cells_in_row = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Open an element: enter dropped or preformatted content, or break a line."""
        if tag in _DROPPED:
            if tag not in _VOID:
                self._dropped_depth += 1
            return
        if self._dropped_depth:
            return
        if tag in _HEADINGS:
            self._end_block()
            self._heading = _HEADINGS[tag]
        elif tag in _PARAGRAPH_BLOCKS:
            self._end_block()
            self._pre_depth += tag == "pre"
        elif tag in _LINE_BREAKS:
            self._end_line()
            self._cells_in_row = 0
        elif tag in _CELLS:
            if self._cells_in_row:
                self._parts.append(" | ")
            self._cells_in_row += 1

    def handle_endtag(self, tag: str) -> None:
        """Close an element: leave dropped content, finish a heading or a block."""
        if tag in _DROPPED:
            self._dropped_depth = max(0, self._dropped_depth - 1)
            return
        if self._dropped_depth:
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
        if self._pre_depth:
            first, *rest = data.split("\n")
            self._parts.append(first)
            for line in rest:
                self._end_line(keep_blank=True)
                self._parts.append(line)
        else:
            self._parts.append(_SPACES.sub(" ", data))

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
        """Flush the last line once the input is complete."""
        super().close()
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
            self.lines.append(MarkedLine(text.strip() if level else text, level))

    def _end_block(self) -> None:
        self._end_line()
        self._heading = 0
        self._cells_in_row = 0
        if self.lines and self.lines[-1].text:
            self.lines.append(MarkedLine(""))


def html_lines(text: str) -> list[MarkedLine]:
    """Convert an HTML document or fragment into marked plain lines."""
    extractor = _TextExtractor()
    extractor.feed(text)
    extractor.close()
    return extractor.lines
