"""More prose the gate was never tuned on, as this machine or a package ships it.

Each reader returns the sentences of one kind of text, or none where it is absent, at most
:data:`SAMPLE` of them (a seeded sample, so that every run reads the same ones):

- :func:`manual_pages`: the English manual pages in ``/usr/share/man`` (reference prose: what
  a command does, its options, its exit status), roff markup removed;
- :func:`specifications`: the plain-text documents under ``/usr/share/doc`` written as
  specifications, with the requirement words of RFC 2119 (``MUST``, ``SHOULD``, ``MAY`` in
  capitals): protocol and format specifications shipped with their packages;
- :func:`changelogs`: the entries of the Debian and upstream change logs under
  ``/usr/share/doc`` (what changed, fixed, added or removed in a release).
"""

from __future__ import annotations

import gzip
import random
import re
from collections.abc import Iterator
from pathlib import Path

from benchmarks.eval_cases import sentences_of

SAMPLE = 3000
"""The most sentences a reader returns."""
FILES = 300
"""The most files a reader opens (a seeded sample of them)."""

MAN = Path("/usr/share/man")
DOC = Path("/usr/share/doc")

_ROFF_ESCAPE = re.compile(r"\\(?:f(?:\(..|\[[^]]*\]|.)|s[-+]?\d+|\*(?:\(..|\[[^]]*\]|.)|\(..|.)")
_ROFF_CHARACTERS = {"\\-": "-", "\\(em": "-", "\\(en": "-", "\\(aq": "'", "\\(dq": '"', "\\e": "\\"}
_TEXT_MACROS = re.compile(r"^\.(?:B|I|BI|BR|IB|IR|RB|RI|SM|SB)\s+(.*)$")
_BREAK_MACROS = re.compile(r"^\.(?:PP|P|LP|SH|SS|TP|IP|HP|sp|br|RS|RE|TH|nf|fi|EX|EE)\b")
_RFC_2119 = re.compile(r"\b(?:MUST|SHOULD|SHALL)(?:\s+NOT)?\b")


READ = 100_000
"""The most characters read of one file (a change log's newest entries come first)."""


def _read(path: Path) -> str:
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as handle:
            return handle.read(READ)
    with path.open(encoding="utf-8", errors="replace") as handle:
        return handle.read(READ)


def _files(paths: list[Path]) -> list[Path]:
    """At most :data:`FILES` of ``paths``, a seeded sample, in order."""
    paths = sorted(p for p in paths if p.is_file())
    if len(paths) > FILES:
        paths = sorted(random.Random(11).sample(paths, FILES))
    return paths


def _sample(sentences: Iterator[str]) -> list[str]:
    """At most :data:`SAMPLE` distinct sentences of five words or more that read as prose."""
    found = [
        s.strip()
        for s in dict.fromkeys(sentences)
        if len(s.split()) >= 5 and sum(c.isalpha() or c.isspace() for c in s) > 0.85 * len(s)
    ]
    random.Random(11).shuffle(found)
    return found[:SAMPLE]


def _unroff(line: str) -> str:
    for escape, character in _ROFF_CHARACTERS.items():
        line = line.replace(escape, character)
    return _ROFF_ESCAPE.sub("", line).replace('"', "")


def _roff_paragraphs(text: str) -> Iterator[str]:
    """The paragraphs of a manual page's text lines, roff requests dropped."""
    paragraph: list[str] = []
    for line in text.splitlines():
        macro = _TEXT_MACROS.match(line)
        if macro is not None:
            paragraph.append(_unroff(macro.group(1)))
        elif not line.strip() or _BREAK_MACROS.match(line) or line.startswith((".", "'")):
            if paragraph and (not line.startswith(".") or _BREAK_MACROS.match(line)):
                yield " ".join(paragraph)
                paragraph = []
        else:
            paragraph.append(_unroff(line))
    if paragraph:
        yield " ".join(paragraph)


def manual_pages() -> list[str]:
    """Sentences of the English manual pages (sections 1, 5, 7 and 8)."""
    pages = sorted(
        p for section in ("man1", "man5", "man7", "man8") for p in (MAN / section).glob("*")
    )
    return _sample(
        sentence
        for page in pages
        if page.is_file()
        for paragraph in _roff_paragraphs(_read(page))
        for sentence in sentences_of(" ".join(paragraph.split()))
    )


def _paragraphs(text: str) -> Iterator[str]:
    for paragraph in re.split(r"\n\s*\n", text):
        if not paragraph.startswith(("   ", "\t")):
            yield " ".join(paragraph.split())


def specifications() -> list[str]:
    """Sentences of the plain-text documents under ``/usr/share/doc`` that state requirements
    in the words of RFC 2119."""
    paths = sorted(p for p in DOC.rglob("*.txt*") if p.is_file()) if DOC.is_dir() else []
    texts = [text for text in map(_read, paths) if len(_RFC_2119.findall(text)) >= 3]
    return _sample(
        sentence
        for text in texts
        for paragraph in _paragraphs(text)
        for sentence in sentences_of(paragraph)
    )


_ENTRY = re.compile(r"^\s+[*+-]\s+(.*)$")


def _entries(text: str) -> Iterator[str]:
    """The entries of a change log: each bullet with its continuation lines."""
    entry: list[str] = []
    for line in text.splitlines():
        bullet = _ENTRY.match(line)
        if bullet is not None:
            if entry:
                yield " ".join(entry)
            entry = [bullet.group(1)]
        elif entry and line.startswith("    ") and line.strip():
            entry.append(line.strip())
        elif entry:
            yield " ".join(entry)
            entry = []
    if entry:
        yield " ".join(entry)


def changelogs() -> list[str]:
    """Sentences of the entries of the change logs under ``/usr/share/doc``."""
    paths = _files(list(DOC.glob("*/changelog*"))) if DOC.is_dir() else []
    return _sample(
        sentence
        for path in paths
        for entry in _entries(_read(path))
        for sentence in sentences_of(" ".join(entry.split()))
    )
