"""The gate on prose from outside the dev data (:mod:`benchmarks.gate_stress`): a slice of
WordNet's usage examples and of Python's language reference, each quoted verbatim and edited
once. A verbatim quote that fails, or an edit that verifies, is a regression on text the gate
was not tuned on."""

from __future__ import annotations

import pytest

from benchmarks.gate_stress import cases, pydoc_sentences, wordnet_examples
from ledger.gate import Status, judge


def test_builds_a_verbatim_case_and_each_edit_that_applies() -> None:
    built = cases(["She did not sign the lease in March 2020."])
    assert [c.category for c in built] == [
        "verbatim",
        "mutant_negation",
        "mutant_period",
        "mutant_gender",
        "mutant_again",
        "mutant_scope",
    ]
    assert built[3].claim.text == "He did not sign the lease in March 2020."
    assert built[4].claim.text == "She did not sign the lease in March 2020 again."
    assert built[5].claim.text == "She did not sign the lease."


def test_reads_the_sources_shipped_with_the_dependencies() -> None:
    assert len(wordnet_examples()) > 10_000
    assert len(pydoc_sentences()) > 1_000


@pytest.mark.parametrize(
    ("read", "start"), [(wordnet_examples, 0), (wordnet_examples, 20_000), (pydoc_sentences, 0)]
)
def test_verifies_every_verbatim_quote_and_no_edit(read: object, start: int) -> None:
    sentences = [t.strip() for t in read() if len(t.split()) >= 5][start : start + 300]  # type: ignore[operator]
    wrong = [
        (case.category, case.claim.text, verdict.status.value)
        for case in cases(sentences)
        if ((verdict := judge(case.claim, case.spans)).status is Status.VERIFIED)
        != (case.category == "verbatim")
    ]
    assert wrong == []
