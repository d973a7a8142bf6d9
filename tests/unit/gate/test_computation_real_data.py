"""TAT-QA arithmetic on real tables, both halves and both claim forms; skipped without the data."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from benchmarks.eval_cases import Case
from ledger.gate import Status, judge

DATA = Path(
    os.environ.get("PROVLEDGER_SHARED_DATA")
    or Path(__file__).resolve().parents[3] / ".." / "shared" / "data"
)
PERTURBED = ("tatqa_sign_flip", "tatqa_x10", "tatqa_plus3pct")


@pytest.fixture(scope="module")
def cases() -> list[Case]:
    if not (DATA / "tatqa" / "tatqa_dataset_dev.json").is_file():
        pytest.skip(f"TAT-QA dev data not found under {DATA}")
    from benchmarks.tatqa_cases import tatqa_cases

    return [c for c in tatqa_cases(DATA) if c.category != "tatqa_unbuilt"]


def _verified_share(cases: list[Case], category: str, half: str) -> float:
    chosen = [c for c in cases if c.category == category and c.half == half]
    counts = Counter(judge(c.claim, c.spans).status for c in chosen)
    return counts[Status.VERIFIED] / len(chosen)


def test_builds_every_tatqa_case_in_both_halves_and_both_forms(cases: list[Case]) -> None:
    kinds = Counter((c.category, c.half) for c in cases)
    for category in ("tatqa_arithmetic", "tatqa_arithmetic_question", *PERTURBED):
        assert kinds[(category, "tune")] > 300
        assert kinds[(category, "check")] > 300


@pytest.mark.parametrize("half", ["tune", "check"])
@pytest.mark.parametrize("form", ["", "_question"])
def test_verifies_at_most_one_percent_of_perturbed_answers(
    cases: list[Case], half: str, form: str
) -> None:
    for category in PERTURBED:
        assert _verified_share(cases, category + form, half) <= 0.01, category + form


@pytest.mark.parametrize("half", ["tune", "check"])
def test_verifies_question_form_claims_as_often_as_declarative_ones(
    cases: list[Case], half: str
) -> None:
    declarative = _verified_share(cases, "tatqa_arithmetic", half)
    question = _verified_share(cases, "tatqa_arithmetic_question", half)
    assert question >= declarative - 0.01
