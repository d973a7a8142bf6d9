"""The line of a cited table cell: a computational claim must name it.

A cell's row labels and column header (:func:`ledger.text.tables.cell_labels`) tell its line
and period from the other cells of its table; its title, and a section label over several
lines, speak for all of them. A computational claim that shares no word with the line of a
cell it cites is ``support_line_unnamed``; one without content words whose remaining words
name a line of its spans (``The change in Other``) passes ``support_line_item``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from ledger.gate.anchors.reading import SPAN_CACHE_SIZE, Reading, read_span
from ledger.gate.computation.claimed import OPERATION_WORDS
from ledger.gate.lexicon.words import MONTH_WORDS, STOP_WORDS, is_numeric, stem, tokens, word_set
from ledger.gate.model import CheckResult, Outcome
from ledger.text.tables import cell_labels

CHECK = "support"

_NOT_LINE_WORDS = (
    (STOP_WORDS - word_set("other others all each both same own only few more most some such any"))
    | OPERATION_WORDS
    | word_set(
        """
        year years yearly annual annually fiscal fy period periods month months quarter quarters
        week weeks
        million millions billion billions thousand thousands trillion mn bn percent per cent
        cents usd dollar dollars eur euro euros gbp
        """
    )
    | MONTH_WORDS
)
"""Words a computational claim without content words may leave out of its spans: grammar,
operation words, periods (the anchors and computation checks own them) and units."""


@lru_cache(maxsize=SPAN_CACHE_SIZE)
def _head_line_stems(head: str, own: bool = False) -> frozenset[str]:
    """The line words of a cell's ``head`` (its row labels and column header), or with
    ``own`` those below its section (:func:`section_of`), when they have any (cached like a
    span's reading: the claims of a receipt cite the same cells again and again)."""
    section, line = section_of(head)
    below = _line_stems(tokens(line)) if own and section else set()
    return frozenset(below or _line_stems(tokens(head)))


def section_of(head: str) -> tuple[str, str]:
    """A cell's head (:func:`ledger.text.tables.cell_labels`) cut into its section and what
    is below it: ``Revenue: Service, 2018`` -> (``Revenue``, ``Service, 2018``); a head
    without a section -> (``""``, head). The ledger's envelopes prefix a section row's label
    to the labels of the rows under it (:mod:`ledger.text.tables`)."""
    section, colon, line = head.partition(": ")
    return (section, line) if colon and section else ("", head)


def _section_lines(heads: Sequence[str]) -> dict[str, set[str]]:
    """For each section of the cited cells' heads, the lines of it they are on (a line by its
    first row label: what stands before the first comma below the section)."""
    lines: dict[str, set[str]] = {}
    for head in heads:
        section, line = section_of(head)
        if section:
            lines.setdefault(section, set()).add(line.split(", ", 1)[0])
    return lines


def _names(words: Sequence[str], wanted: frozenset[str]) -> bool:
    """Whether one of the ``words`` is a line word whose stem is ``wanted`` (the first found
    ends the search: a claim names its line early)."""
    return any(w not in _NOT_LINE_WORDS and stem(w) in wanted for w in words)


def _line_stems(words: Sequence[str]) -> set[str]:
    """The stems of the ``words`` that may name a line of a table: not grammar, operations,
    periods or units (:data:`_NOT_LINE_WORDS`), not numbers; ``Other`` and ``Total`` do."""
    return {stem(w) for w in words if w not in _NOT_LINE_WORDS and not is_numeric(w)}


def check_line_item_support(claim: Reading, evidence: Sequence[str]) -> CheckResult | None:
    """Pass ``support_line_item`` for a computational claim without content words whose
    remaining words name a line of its spans (``The change in Other in 2019 from 2018``,
    ``the Total amount``): every word that is not grammar, an operation, a period or a unit
    (:data:`_NOT_LINE_WORDS`) occurs in the spans, and there is at least one such word.
    ``None`` when it does not hold."""
    wanted = {stem(w) for w in claim.tokens if w not in _NOT_LINE_WORDS and not is_numeric(w)}
    if not wanted:
        return None
    found: set[str] = set()
    for text in evidence:
        found.update(stem(w) for w in read_span(text).reading.tokens)
    if not wanted <= found:
        return None
    return CheckResult(
        CHECK,
        Outcome.PASS,
        "support_line_item",
        f"the claim's only words name a line of its spans: {', '.join(sorted(wanted))}",
    )


def check_line_named(claim: Reading, cells: Sequence[tuple[str, str]]) -> CheckResult | None:
    """Fail ``support_line_unnamed`` when a computational claim does not name the line of a
    cell it cites: the claim shares no content word with the cell's row labels and column
    header, though they have some (``cells``: each cited cell's envelope and value, read by
    :func:`ledger.text.tables.cell_labels`). The title of a table speaks for all of
    its lines (``Prepaid expenses and other consist of the following``), so its words cannot
    say which line a figure is on: a claim about ``Prepaid expenses`` citing the cells of
    ``Other current assets`` finds every word in the title and names another line. A section
    label speaks for all the lines below it in the same way: a claim citing cells of one line
    of a section (``Revenue: Service``) must name a word below the section label, not only the
    section (``The change in Product revenue``); one citing several lines of a section may
    name the section alone. ``None`` when every cited cell's line is named."""
    heads = [cell_labels(envelope, value) for envelope, value in cells]
    sections = _section_lines(heads)
    for head in heads:
        section, _ = section_of(head)
        # A section speaks for all of its lines, as a title does, unless the claim cites
        # several of them (``the sum of all Tax credit carryforwards``).
        wanted = _head_line_stems(head, own=len(sections.get(section, ())) == 1)
        if wanted and not _names(claim.tokens, wanted):
            return CheckResult(
                CHECK,
                Outcome.FAIL,
                "support_line_unnamed",
                f"the claim names no word of the line {head!r} of a cell it cites",
            )
    return None
