"""Markdown to plain lines and tables, parsed by ``markdown-it-py`` (CommonMark and GFM tables).

Kept: every word of the text, list markers (``- x``, ``1. x``, nested items indented), line
structure of paragraphs. Changed: headings (ATX and setext) become bare title lines marked with
their level; emphasis, strike-through and inline code lose their markers; links keep their
text and images their alt text, reference links included (their definitions are dropped);
block quotes lose their ``>`` markers; code keeps its content verbatim without fences; a
thematic break becomes a blank line. Raw HTML is reduced as HTML input is
(:mod:`ledger.text._html`): a block of it through the HTML converter, inline tags dropped with
their text kept (``<br>`` ends a line). A pipe table is taken out of the text and returned as a
table, its header row as the header and the last heading before it as its title.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ledger.text._html import html_document
from ledger.text._lines import MarkedLine
from ledger.text._table_builder import TableBuilder
from ledger.text.tables import Table

_PARSER = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
_LEAVES = frozenset(
    {"paragraph_open", "heading_open", "fence", "code_block", "html_block", "table_open", "hr"}
)
_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)


def inline_text(token: Token) -> str:
    """The plain text of an inline token: words kept, markup dropped, breaks as newlines."""
    parts: list[str] = []
    for child in token.children or ():
        kind = child.type
        if kind in ("text", "code_inline", "text_special"):
            parts.append(child.content)
        elif kind in ("softbreak", "hardbreak"):
            parts.append("\n")
        elif kind == "image":
            parts.append(inline_text(child) if child.children else child.content)
        elif kind == "html_inline" and _BR.fullmatch(child.content.strip()):
            parts.append("\n")
    return "".join(parts)


def markdown_document(text: str) -> tuple[list[MarkedLine], list[Table]]:
    """Convert Markdown source (LF line endings) into marked plain lines and its tables.

    A form feed is a page break, which CommonMark would read as white space: each page is
    parsed on its own and the pages are joined by a line holding the form feed.
    """
    out: list[MarkedLine] = []
    tables: list[Table] = []
    for number, page in enumerate(text.split("\f")):
        if number:
            out.append(MarkedLine("\f"))
        walk = _Walk(_PARSER.parse(page))
        walk.run()
        out.extend(walk.out)
        tables.extend(walk.tables)
    return out, tables


class _Walk:
    """One pass over the block tokens, collecting lines, tables and the heading in force."""

    def __init__(self, tokens: Sequence[Token]) -> None:
        self.tokens = tokens
        self.out: list[MarkedLine] = []
        self.tables: list[Table] = []
        self.markers: list[str] = []  # the open lists' markers, innermost last
        self.numbers: list[int] = []
        self.item_prefix: str | None = None
        self.heading = ""
        self.last_line = 0  # the source line after the last leaf block

    def run(self) -> None:
        """Walk every token."""
        index = 0
        while index < len(self.tokens):
            token = self.tokens[index]
            if token.map is not None and token.type in _LEAVES:
                # A gap in the source between two blocks is a blank line in the text.
                if token.map[0] > self.last_line:
                    self._blank()
                self.last_line = token.map[1]
            index = self._block(token, index) + 1

    def _block(self, token: Token, index: int) -> int:
        kind = token.type
        if kind == "heading_open":
            self.heading = inline_text(self.tokens[index + 1]).replace("\n", " ").strip()
            self.out.append(MarkedLine(self.heading, int(token.tag[1])))
            return index + 2
        if kind.endswith("_list_open"):
            self.markers.append(token.markup)
            self.numbers.append(int(token.attrGet("start") or 1))
        elif kind.endswith("_list_close"):
            self.markers.pop()
            self.numbers.pop()
        elif kind == "list_item_open":
            self._item(token)
        elif kind == "inline":
            lines = inline_text(token).split("\n")
            if self.item_prefix is not None:
                lines[0] = self.item_prefix + lines[0]
                self.item_prefix = None
            self.out.extend(MarkedLine(line) for line in lines)
        elif kind in ("fence", "code_block"):
            self._blank()
            self.out.extend(MarkedLine(line) for line in token.content.rstrip("\n").split("\n"))
            self._blank()
        elif kind == "html_block":
            reduced, found = html_document(token.content, self.heading)
            self.out.extend(reduced)
            self.tables.extend(found)
            self._blank()
        elif kind == "table_open":
            index = _table(self.tokens, index, self.heading, self.tables)
            self._blank()
        elif kind == "hr":
            self._blank()
        return index

    def _blank(self) -> None:
        """End the paragraph with one blank line (none at the start, none twice)."""
        if self.out and self.out[-1].text:
            self.out.append(MarkedLine(""))

    def _item(self, token: Token) -> None:
        depth = "  " * (len(self.markers) - 1)
        if token.markup in (".", ")"):
            self.item_prefix = f"{depth}{token.info or self.numbers[-1]}{token.markup} "
            self.numbers[-1] += 1
        else:
            self.item_prefix = f"{depth}{token.markup} "


def _table(tokens: Sequence[Token], index: int, heading: str, tables: list[Table]) -> int:
    """Collect the pipe table opening at ``index``; returns the index of its ``table_close``."""
    builder = TableBuilder(title=heading)
    while tokens[index].type != "table_close":
        token = tokens[index]
        if token.type == "tr_open":
            builder.start_row()
        elif token.type in ("th_open", "td_open"):
            builder.add_cell(inline_text(tokens[index + 1]), token.type == "th_open")
        index += 1
    built = builder.build()
    if built is not None:
        tables.append(built)
    return index
