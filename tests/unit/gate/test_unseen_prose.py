"""The gate on prose from outside the dev data (:mod:`benchmarks.gate_stress`): a slice of
WordNet's usage examples, of Python's language reference, of the licence texts Debian ships
and of the installed packages' descriptions, each quoted verbatim and edited once. A verbatim
quote that fails, or an edit that verifies, is a regression on text the gate was not tuned
on."""

from __future__ import annotations

import pytest

from benchmarks.gate_stress import (
    LICENCES,
    cases,
    licence_sentences,
    package_sentences,
    pydoc_sentences,
    wordnet_examples,
)
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


def _wrong(sentences: list[str]) -> list[tuple[str, str, str]]:
    """The cases built from ``sentences`` that go the wrong way: a verbatim quote that does not
    verify, an edit that does."""
    return [
        (case.category, case.claim.text, verdict.status.value)
        for case in cases(sentences)
        if ((verdict := judge(case.claim, case.spans)).status is Status.VERIFIED)
        != (case.category == "verbatim")
    ]


@pytest.mark.parametrize(
    ("read", "start"),
    [
        (wordnet_examples, 0),
        (wordnet_examples, 20_000),
        (pydoc_sentences, 0),
        pytest.param(
            licence_sentences,
            0,
            marks=pytest.mark.skipif(not LICENCES.is_dir(), reason="no licence texts here"),
        ),
    ],
)
def test_verifies_every_verbatim_quote_and_no_edit(read: object, start: int) -> None:
    sentences = [t.strip() for t in read() if len(t.split()) >= 5][start : start + 300]  # type: ignore[operator]
    assert len(sentences) == 300
    assert _wrong(sentences) == []


_CLAUSES = [
    # Each of these verified once edited (a condition, an exception, a narrowed denial, a
    # bound dropped); the edits are what benchmarks.gate_mutations makes of them.
    "For example, if you distribute copies of such a program, whether gratis or for a fee, "
    "you must pass on to the recipients the same freedoms that you received.",
    "The Corresponding Application Code means the object code for the Application, including "
    "any data needed for reproducing the Work, but excluding the System Libraries of the Work.",
    "The library allows interaction with databases on the main event loop without blocking "
    "execution of other coroutines while waiting for queries or data fetches.",
    "The new core is currently around 17x faster than the first version.",
]


@pytest.mark.parametrize("text", _CLAUSES)
def test_verifies_the_verbatim_quote_of_legal_and_product_prose_and_no_edit_of_it(
    text: str,
) -> None:
    assert _wrong([text]) == []


def test_reads_the_installed_packages_descriptions() -> None:
    assert len(package_sentences()) > 500
