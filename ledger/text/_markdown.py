"""Markdown to plain lines, conservatively.

Kept: every word of the text, list markers, line structure. Changed: ATX (``# Title``) and
setext (``Title`` over ``===``/``---``) headings become bare title lines marked with their
level; ``**strong**``, ``*em*``, ``__strong__``, ``_em_`` and ``~~strike~~`` lose their markers;
inline code loses its backticks; ``[text](url)`` and ``![alt](url)`` become ``text``/``alt``;
block-quote ``>`` markers, code fences and thematic breaks (``---``) are dropped. Fenced code
keeps its content verbatim.
"""

from __future__ import annotations

import re

from ledger.text._lines import ATX_HEADING, MarkedLine, is_blank, is_list_item

_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r" {0,3}(```|~~~)")
_BREAK = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_QUOTE = re.compile(r" {0,3}(?:>[ \t]?)+")
_IMAGE_OR_LINK = re.compile(r"!?\[([^\[\]\n]*)\]\((?:[^()\s]|\([^()\s]*\))*(?:[ \t]+\"[^\"]*\")?\)")
_CODE = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_STRONG = re.compile(r"(?<![\w*~])(\*\*|__|~~)(?=\S)(.+?)(?<=\S)\1(?![\w*~])")
_EMPHASIS = re.compile(r"(?<![\w*])([*_])(?=[^\s*_])(.+?)(?<=[^\s*_])\1(?![\w*])")


def strip_inline(line: str) -> str:
    """Remove inline Markdown syntax from one line, keeping the words it marks up."""
    if not any(mark in line for mark in "*_`[~"):
        return line
    line = _IMAGE_OR_LINK.sub(r"\1", line)
    line = _CODE.sub(lambda match: match.group(2).strip() or match.group(0), line)
    line = _STRONG.sub(r"\2", line)
    return _EMPHASIS.sub(r"\2", line)


def markdown_lines(text: str) -> list[MarkedLine]:
    """Convert Markdown source (LF line endings) into marked plain lines."""
    source = text.split("\n")
    out: list[MarkedLine] = []
    fence: str | None = None
    for index, raw in enumerate(source):
        if fence is not None:
            if raw.lstrip().startswith(fence):
                fence = None
                out.append(MarkedLine(""))
            else:
                out.append(MarkedLine(raw))
            continue
        opening = _FENCE.match(raw)
        if opening is not None:
            fence = opening.group(1)
            out.append(MarkedLine(""))
            continue
        line = _QUOTE.sub("", raw, count=1) if raw.lstrip().startswith(">") else raw
        atx = _ATX.match(line) if ATX_HEADING.match(line) else None
        if atx is not None:
            title = strip_inline(atx.group(2) or "").strip()
            out.append(MarkedLine(title, len(atx.group(1)) if title else 0))
            continue
        setext = _SETEXT.match(line)
        if setext is not None and _is_setext_title(source, index, out):
            title_line = out.pop()
            level = 1 if setext.group(1).startswith("=") else 2
            out.append(MarkedLine(title_line.text.strip(), level))
            continue
        if _BREAK.match(line) is not None:
            out.append(MarkedLine(""))
            continue
        out.append(MarkedLine(strip_inline(line)))
    return out


def _is_setext_title(source: list[str], index: int, out: list[MarkedLine]) -> bool:
    """A setext underline needs exactly one plain text line above it, after a blank or start."""
    if index == 0 or not out or out[-1].level or is_blank(out[-1].text):
        return False
    above = source[index - 1]
    if is_list_item(above) or above.startswith((" " * 4, "\t")):
        return False
    return index < 2 or is_blank(source[index - 2])
