"""The examples of docs/gate.md run as written: each row of its table of claims, spans and
statuses is judged, and gets the status (and the reason) the table says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.unit.gate._facts import judged

DOC = Path(__file__).resolve().parents[3] / "docs" / "gate.md"
_ROW = re.compile(
    r"^\| `(?P<claim>[^`]+)` \| (?:`(?P<span>[^`]+)`|same) \| "
    r"(?P<status>\w+)(?: \(`(?P<reason>\w+)`\))? \|$"
)


def examples() -> list[tuple[str, str, str, str | None]]:
    """(claim, span, status, reason) of each row; ``same`` repeats the span above."""
    out: list[tuple[str, str, str, str | None]] = []
    span = ""
    for line in DOC.read_text().splitlines():
        row = _ROW.match(line)
        if row is None:
            continue
        span = row["span"] or span
        out.append((row["claim"], span, row["status"], row["reason"]))
    return out


def test_the_reference_has_examples() -> None:
    assert len(examples()) >= 5


@pytest.mark.parametrize(("claim", "span", "status", "reason"), examples())
def test_each_example_gets_the_status_the_reference_gives(
    claim: str, span: str, status: str, reason: str | None
) -> None:
    verdict = judged(claim, span)
    assert verdict.status.value == status, verdict.checks
    if reason is not None:
        assert reason in {c.reason for c in verdict.checks}
