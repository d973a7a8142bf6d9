"""The tamper coverage table of docs/verification.md names only tests that exist."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGE = (REPO / "docs" / "verification.md").read_text(encoding="utf-8")
TESTS = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "tests").rglob("test_*.py"))
CORPUS = (REPO / "tests" / "integration" / "bundle_forgeries.py").read_text(encoding="utf-8")


def _coverage_rows() -> list[str]:
    section = PAGE.split("## Tamper coverage", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| ") and "---" not in line]


def test_every_test_the_tamper_table_names_is_defined() -> None:
    names = {n for row in _coverage_rows() for n in re.findall(r"\btest_[a-z0-9_]+", row)}
    assert len(names) >= 40
    missing = sorted(n for n in names if f"def {n}(" not in TESTS)
    assert missing == []


def _vectors(test_file: str) -> set[str]:
    """The vector ids (``[like-this]``) of the rows whose test column names ``test_file``."""
    return {
        v
        for row in _coverage_rows()
        if f"| {test_file} `" in row
        for v in re.findall(r"\[([a-z0-9-]+)\]", row)
    }


def test_every_bundle_vector_the_tamper_table_names_is_in_the_corpus() -> None:
    vectors = _vectors("B")
    assert len(vectors) >= 15
    missing = sorted(v for v in vectors if f'"{v}"' not in CORPUS)
    assert missing == []


def test_every_read_model_edit_the_tamper_table_names_is_one_the_list_test_makes() -> None:
    edits = (REPO / "tests" / "e2e" / "test_served_summaries_http.py").read_text(encoding="utf-8")
    vectors = _vectors("SS")
    assert len(vectors) >= 15
    missing = sorted(v for v in vectors if f'"{v}": Edit(' not in edits)
    assert missing == []
