"""The judge: check order and how the status follows from the results."""

from __future__ import annotations

import pytest

from ledger.gate import (
    HARD_CHECKS,
    ORDER,
    REASONS,
    Binding,
    ClaimDraft,
    ClaimType,
    GateConfig,
    Outcome,
    Role,
    SpanFacts,
    Status,
    Verdict,
    judge,
)
from tests.unit.gate._facts import claim, span

SENTENCE = "Automotive revenue declined 2.2% quarter-on-quarter in 2023."
SPANS = {"s1": span("s1", SENTENCE)}


def _reasons(verdict: Verdict) -> dict[str, str]:
    return {c.check: c.reason for c in verdict.checks}


def test_verifies_a_claim_that_repeats_its_span_with_an_exact_quote() -> None:
    verdict = judge(claim(SENTENCE, "s1", quote=SENTENCE), SPANS)
    assert verdict.status is Status.VERIFIED
    assert [c.check for c in verdict.checks] == list(ORDER)
    assert _reasons(verdict)["quote"] == "quote_exact"


def test_verifies_a_correct_computational_claim_over_table_cells() -> None:
    spans = {
        "a": span("a", "44.1", "Sales (in millions) \u2014 Other, 2019: 44.1"),
        "b": span("b", "56.7", "Sales (in millions) \u2014 Other, 2018: 56.7"),
    }
    verdict = judge(
        claim(
            "Other sales fell by 12.6 million from 2018 to 2019.",
            "a",
            "b",
            type=ClaimType.COMPUTATIONAL,
        ),
        spans,
    )
    assert verdict.status is Status.VERIFIED
    assert _reasons(verdict)["computation"] == "recomputed"


@pytest.mark.parametrize(
    ("text", "check", "reason"),
    [
        (
            "Automotive revenue rose 2.2% quarter-on-quarter in 2023.",
            "polarity",
            "direction_mismatch",
        ),
        (
            "Automotive revenue declined 22% quarter-on-quarter in 2023.",
            "anchors",
            "anchor_missing",
        ),
        (
            "Automotive revenue never declined 2.2% quarter-on-quarter in 2023.",
            "polarity",
            "negation_mismatch",
        ),
        (
            "Automotive revenue declined 2.2% quarter-on-quarter in 2024.",
            "anchors",
            "anchor_missing",
        ),
    ],
)
def test_never_verifies_a_claim_that_contradicts_its_span(
    text: str, check: str, reason: str
) -> None:
    verdict = judge(claim(text, "s1"), SPANS)
    assert verdict.status is Status.REJECTED
    assert _reasons(verdict)[check] == reason


def test_never_verifies_an_unhedged_claim_citing_a_hedged_span() -> None:
    spans = {"s1": span("s1", "Automotive revenue may increase next year.")}
    verdict = judge(claim("Automotive revenue will increase next year.", "s1"), spans)
    assert verdict.status is Status.REJECTED
    assert _reasons(verdict)["polarity"] == "hedge_mismatch"


@pytest.mark.parametrize(
    ("facts", "check", "reason"),
    [
        (span("s1", SENTENCE, exists=False), "existence", "span_unknown"),
        (span("s1", SENTENCE, in_pool=False), "existence", "span_not_in_pool"),
        (span("s1", SENTENCE, in_force=False), "version", "version_not_in_force"),
        (span("s1", SENTENCE, withdrawn=True), "version", "source_withdrawn"),
    ],
)
def test_rejects_a_broken_citation(facts: SpanFacts, check: str, reason: str) -> None:
    verdict = judge(claim(SENTENCE, "s1"), {"s1": facts})
    assert verdict.status is Status.REJECTED
    assert (check, reason) in {
        (c.check, c.reason) for c in verdict.checks if c.outcome is Outcome.FAIL
    }


def test_rejects_a_span_id_the_caller_did_not_resolve() -> None:
    verdict = judge(claim(SENTENCE, "missing"), SPANS)
    assert verdict.status is Status.REJECTED
    assert verdict.checks[0].reason == "span_unknown"
    assert verdict.checks[0].span_id == "missing"


def test_rejects_a_misquotation_even_when_the_claim_is_supported() -> None:
    verdict = judge(claim(SENTENCE, "s1", quote="automotive revenue declined"), SPANS)
    assert verdict.status is Status.REJECTED
    assert _reasons(verdict)["quote"] == "quote_mismatch"


def test_leaves_a_material_unbound_claim_unverified_not_rejected() -> None:
    verdict = judge(ClaimDraft("Revenue declined."), {})
    assert verdict.status is Status.UNVERIFIED
    assert _reasons(verdict)["coverage"] == "unsupported"
    assert _reasons(verdict)["support"] == "no_evidence"


def test_leaves_a_non_material_unbound_claim_unverified_with_coverage_skipped() -> None:
    verdict = judge(ClaimDraft("Thanks for asking.", material=False), {})
    assert verdict.status is Status.UNVERIFIED
    assert verdict.checks[-1].outcome is Outcome.SKIP
    assert verdict.checks[-1].reason == "not_material"


def test_counts_only_support_roles_as_evidence() -> None:
    verdict = judge(claim(SENTENCE, "s1", role=Role.CONTEXT), SPANS)
    assert verdict.status is Status.UNVERIFIED
    assert _reasons(verdict)["coverage"] == "unsupported"


def test_leaves_a_claim_with_a_word_that_aligns_to_nothing_unverified() -> None:
    verdict = judge(claim("Automotive revenue declined 2.2% in Europe in 2023.", "s1"), SPANS)
    assert verdict.status is Status.UNVERIFIED
    support = next(c for c in verdict.checks if c.check == "support")
    assert (support.outcome, support.reason) == (Outcome.FAIL, "support_unaligned")
    assert "not aligned: europe" in support.detail


def test_honours_a_lower_support_threshold() -> None:
    text = "Automotive revenue declined 2.2% quarter-on-quarter in Europe in 2023."
    verdict = judge(claim(text, "s1"), SPANS, GateConfig(support_threshold=0.5))
    assert verdict.status is Status.VERIFIED


def test_leaves_a_computational_claim_it_cannot_recompute_unverified() -> None:
    verdict = judge(claim(SENTENCE, "s1", type=ClaimType.COMPUTATIONAL), SPANS)
    assert verdict.status is Status.UNVERIFIED
    assert _reasons(verdict)["computation"] == "not_reproduced"


def test_reads_a_table_cell_together_with_its_envelope() -> None:
    spans = {
        "c": span("c", "$4.5 million", "Revenue by segment \u2014 Services, FY2023: $4.5 million")
    }
    verdict = judge(claim("Services revenue was 4,500,000 dollars in FY2023.", "c"), spans)
    assert verdict.status is Status.VERIFIED


def test_serialises_verdicts_to_json() -> None:
    verdict = judge(ClaimDraft(SENTENCE, bindings=(Binding("s1", quote=SENTENCE),)), SPANS)
    data = verdict.to_json()
    assert data["status"] == "verified"
    checks = data["checks"]
    assert isinstance(checks, list)
    assert checks[0] == {
        "check": "existence",
        "outcome": "pass",
        "reason": "span_exists",
        "detail": "the span resolves and is in the pool",
        "span_id": "s1",
    }
    assert "span_id" not in checks[-1]


def test_documents_every_reason_code_it_emits() -> None:
    verdicts = [
        judge(claim(SENTENCE, "s1", quote="x"), SPANS),
        judge(claim(SENTENCE, "nope"), SPANS),
        judge(ClaimDraft("Hi.", material=False), {}),
    ]
    for verdict in verdicts:
        for check in verdict.checks:
            assert (check.check, check.reason) in REASONS
            assert REASONS[(check.check, check.reason)].outcome is check.outcome


def test_hard_checks_are_those_that_reject() -> None:
    assert {"existence", "version", "quote", "anchors", "polarity", "computation"} == HARD_CHECKS


DATE_RANGE = "Apr 23, 2014 - May 23, 2014"


def test_verifies_a_date_range_whose_months_days_and_years_align_to_its_span() -> None:
    spans = {"s1": span("s1", f"{DATE_RANGE} (launch window)")}
    verdict = judge(claim(DATE_RANGE, "s1"), spans)
    assert verdict.status is Status.VERIFIED
    assert _reasons(verdict)["support"] == "support_aligned"


def test_rejects_a_date_range_with_a_month_moved() -> None:
    spans = {"s1": span("s1", DATE_RANGE)}
    verdict = judge(claim("Apr 23, 2014 - Jun 23, 2014", "s1"), spans)
    assert verdict.status is Status.REJECTED


GRAMMAR_ONLY = "It is what it is."


def test_verifies_a_claim_of_grammar_words_only_that_is_its_quoted_span() -> None:
    spans = {"s1": span("s1", GRAMMAR_ONLY)}
    verdict = judge(claim(GRAMMAR_ONLY, "s1", quote=GRAMMAR_ONLY), spans)
    assert verdict.status is Status.VERIFIED
    assert _reasons(verdict)["support"] == "support_verbatim"


def test_leaves_a_claim_of_grammar_words_only_unverified_when_it_is_not_its_span() -> None:
    spans = {"s1": span("s1", f"{GRAMMAR_ONLY} (a saying)")}
    verdict = judge(claim(GRAMMAR_ONLY, "s1", quote=GRAMMAR_ONLY), spans)
    assert verdict.status is Status.UNVERIFIED
    assert _reasons(verdict)["support"] == "no_content_words"


def test_leaves_an_unquoted_claim_of_grammar_words_only_unverified() -> None:
    verdict = judge(claim(GRAMMAR_ONLY, "s1"), {"s1": span("s1", GRAMMAR_ONLY)})
    assert _reasons(verdict)["support"] == "no_content_words"


def test_gives_the_same_verdict_to_a_claim_read_afresh_and_with_spans_cached() -> None:
    from ledger.gate.anchors.reading import read_span

    draft = claim("Automotive revenue declined 2.2% in 2023.", "s1")
    warm = judge(draft, SPANS)
    read_span.cache_clear()
    assert judge(draft, SPANS) == warm


RATE = "Assumptions \u2014 Dividend yield, Year Ended May 31"
YIELDS = {
    "y19": span("y19", "1.7%", f"{RATE}, 2019: 1.7%"),
    "y18": span("y18", "1.5%", f"{RATE}, 2018: 1.5%"),
    "y17": span("y17", "1.5%", f"{RATE}, 2017: 1.5%"),
}


def test_exempts_a_count_of_years_that_equals_the_figures_cited() -> None:
    text = "The average dividend yield for the 3 years from 2017 to 2019 is 1.57%."
    verdict = judge(claim(text, *YIELDS, type=ClaimType.COMPUTATIONAL), YIELDS)
    assert verdict.status is Status.VERIFIED


def test_does_not_verify_a_count_of_years_that_the_cited_figures_do_not_have() -> None:
    # A computational claim is not aligned: a figure its cells lack leaves it unverified.
    text = "The average dividend yield for the 4 years from 2017 to 2019 is 1.57%."
    verdict = judge(claim(text, *YIELDS, type=ClaimType.COMPUTATIONAL), YIELDS)
    assert verdict.status is Status.UNVERIFIED
    assert _reasons(verdict)["anchors"] == "anchor_unaligned"


def test_leaves_a_claim_about_revenue_computed_from_cost_of_sales_cells_unverified() -> None:
    spans = {
        "a": span("a", "44.1", "Costs (in millions) \u2014 Cost of sales, 2019: 44.1"),
        "b": span("b", "56.7", "Costs (in millions) \u2014 Cost of sales, 2018: 56.7"),
    }
    text = "Revenue fell by 12.6 million from 2018 to 2019."
    verdict = judge(claim(text, "a", "b", type=ClaimType.COMPUTATIONAL), spans)
    assert _reasons(verdict)["computation"] == "recomputed"
    assert verdict.status is Status.UNVERIFIED
    assert _reasons(verdict)["support"] == "support_insufficient"


OTHER_CELLS = {
    "a": span("a", "44.1", "Sales (in millions) \u2014 Other, 2019: 44.1"),
    "b": span("b", "56.7", "Sales (in millions) \u2014 Other, 2018: 56.7"),
}


def test_verifies_a_computational_claim_whose_only_words_name_the_cited_line() -> None:
    text = "The change in Other in 2019 from 2018 is -12.6 million."
    verdict = judge(claim(text, "a", "b", type=ClaimType.COMPUTATIONAL), OTHER_CELLS)
    assert verdict.status is Status.VERIFIED
    assert _reasons(verdict)["support"] == "support_line_item"
    assert REASONS[("support", "support_line_item")].outcome is Outcome.PASS


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("The change in Other in 2019 from 2018 is 12.6 million.", Status.REJECTED),
        ("The change in Other in 2019 from 2018 is -126 million.", Status.REJECTED),
        ("The change in Total in 2019 from 2018 is -12.6 million.", Status.UNVERIFIED),
    ],
)
def test_does_not_verify_a_line_item_claim_with_a_wrong_figure_sign_or_line(
    text: str, status: Status
) -> None:
    verdict = judge(claim(text, "a", "b", type=ClaimType.COMPUTATIONAL), OTHER_CELLS)
    assert verdict.status is status


def test_verifies_a_factual_claim_whose_words_are_all_in_its_cited_cell() -> None:
    verdict = judge(claim("Other in 2019 is 44.1 million.", "a"), OTHER_CELLS)
    assert verdict.status is Status.VERIFIED
    assert _reasons(verdict)["support"] == "support_aligned"


def test_rejects_a_factual_claim_naming_the_year_of_another_cell() -> None:
    # Every other word of the claim is in the cell: its year is absent where it aligns.
    verdict = judge(claim("Other in 2018 is 44.1 million.", "a"), OTHER_CELLS)
    assert verdict.status is Status.REJECTED
    assert _reasons(verdict)["anchors"] == "anchor_missing"
