"""Key guarantees on small slices of real data (WiCE, TAT-QA, SummEdits); skipped without it."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from ledger.gate import Status, judge

DATA = Path(
    os.environ.get("PROVLEDGER_SHARED_DATA")
    or Path(__file__).resolve().parents[3] / ".." / "shared" / "data"
)
SLICE = 20


@pytest.fixture(scope="module")
def root() -> Path:
    if not DATA.is_dir():
        pytest.skip(f"shared data not found at {DATA}")
    return DATA


def test_verifies_verbatim_quotes_of_real_sentences(root: Path) -> None:
    from benchmarks.gate_eval import verbatim_cases

    for case in verbatim_cases(root, limit=SLICE):
        assert judge(case.claim, case.spans).status is Status.VERIFIED, case.claim.text


def test_never_verifies_summedits_negation_or_antonym_edits(root: Path) -> None:
    from benchmarks.summedits_cases import summedits_cases

    cases = [c for c in summedits_cases(root) if c.category != "summedits_original"]
    for case in cases[:SLICE]:
        assert judge(case.claim, case.spans).status is not Status.VERIFIED, case.claim.text


def test_never_verifies_perturbed_tatqa_answers(root: Path) -> None:
    from benchmarks.gate_eval import tatqa_cases

    perturbed = (c for c in tatqa_cases(root) if c.category in {"tatqa_x10", "tatqa_plus3pct"})
    for case in itertools.islice(perturbed, SLICE):
        assert judge(case.claim, case.spans).status is not Status.VERIFIED, case.claim.text


def test_verifies_most_correct_tatqa_answers(root: Path) -> None:
    from benchmarks.gate_eval import tatqa_cases

    cases = list(
        itertools.islice((c for c in tatqa_cases(root) if c.category == "tatqa_arithmetic"), SLICE)
    )
    verified = sum(judge(c.claim, c.spans).status is Status.VERIFIED for c in cases)
    # The evaluation reports the full figure; this only guards against a collapse.
    assert verified >= len(cases) // 3


def test_verifies_no_wice_not_supported_claim_citing_its_best_sentence(root: Path) -> None:
    from benchmarks.wice_cases import wice_cases

    cases = [c for c in wice_cases(root) if c.category == "wice_not_supported"][:SLICE]
    assert all(judge(c.claim, c.spans).status is not Status.VERIFIED for c in cases)


def test_never_verifies_an_edited_summary_against_its_seed_summary(root: Path) -> None:
    from benchmarks.summedits_cases import seed_cases

    edited = (c for c in seed_cases(root) if c.category != "seed_consistent")
    for case in itertools.islice(edited, SLICE):
        assert judge(case.claim, case.spans).status is not Status.VERIFIED, case.claim.text


def test_never_verifies_a_perturbed_verbatim_sentence(root: Path) -> None:
    from benchmarks.gate_eval import mutant_cases

    for case in mutant_cases(root, limit=SLICE):
        assert judge(case.claim, case.spans).status is not Status.VERIFIED, case.claim.text


def test_never_verifies_a_wice_claim_with_a_negation_inserted(root: Path) -> None:
    from benchmarks.wice_cases import wice_cases

    negated = [c for c in wice_cases(root) if c.category == "wice_negated"][:SLICE]
    assert negated
    assert all(judge(c.claim, c.spans).status is not Status.VERIFIED for c in negated)


def test_tags_every_case_with_the_half_of_its_document(root: Path) -> None:
    from benchmarks.gate_eval import verbatim_cases
    from benchmarks.summedits_cases import seed_cases

    cases = list(verbatim_cases(root, limit=200)) + list(itertools.islice(seed_cases(root), 200))
    assert {c.half for c in cases} == {"tune", "check"}
