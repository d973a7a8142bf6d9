"""The computation check: recomputing claimed results from cited figures."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.gate.computation.check import check_computation
from ledger.gate.computation.operands import signed_label
from ledger.gate.model import ClaimType, Outcome, SpanFacts
from tests.unit.gate._facts import row_cells, span

C = ClaimType.COMPUTATIONAL
TITLE = "Sales by contract type (in millions) \u2014 Other"
CELLS = [
    span("c19", "44.1", f"{TITLE}, 2019: 44.1"),
    span("c18", "56.7", f"{TITLE}, 2018: 56.7"),
]


def _run(text: str, spans: list[SpanFacts] = CELLS) -> tuple[Outcome, str, str]:
    result, _ = check_computation(text, C, spans)
    return result.outcome, result.reason, result.detail


@pytest.mark.parametrize(
    "text",
    [
        "Other sales fell by 12.6 million from 2018 to 2019.",
        "The change in Other sales in 2019 from 2018 was -12.6 million.",
        "Other sales decreased 22.2% from 2018 to 2019.",
        "Other sales averaged 50.4 million in 2018 and 2019.",
        "Other sales totalled 100.8 million over 2018 and 2019.",
        "Other sales in 2018 were 1.29 times those of 2019.",
    ],
)
def test_recomputes_a_correct_result(text: str) -> None:
    outcome, reason, detail = _run(text)
    assert (outcome, reason) == (Outcome.PASS, "recomputed")
    assert "44.1" in detail


@pytest.mark.parametrize(
    "text",
    [
        "Other sales rose by 12.6 million from 2018 to 2019.",
        "The change in Other sales in 2019 from 2018 was 12.6 million.",
        "The change in Other sales in 2019 from 2018 was -126 million.",
        "The change in Other sales in 2019 from 2018 was -12.98 million.",
    ],
)
def test_rejects_a_sign_flip_a_tenfold_and_a_three_percent_error(text: str) -> None:
    outcome, reason, detail = _run(text)
    assert (outcome, reason) == (Outcome.FAIL, "recompute_mismatch")
    assert "nearest" in detail


def test_applies_a_declared_thousands_scale_to_a_claim_in_millions() -> None:
    cells = [
        span("a", "12,600", "Costs ($ in thousands) \u2014 Rent, 2019: 12,600"),
        span("b", "6,300", "Costs ($ in thousands) \u2014 Rent, 2018: 6,300"),
    ]
    assert _run("Rent rose by 6.3 million from 2018 to 2019.", cells)[1] == "recomputed"
    assert _run("Rent rose by 6,300 million from 2018 to 2019.", cells)[1] == "recompute_mismatch"


def test_recomputes_a_basis_point_change_of_two_percentages() -> None:
    cells = [
        span("a", "4.0%", "Rates \u2014 Margin, 2019: 4.0%"),
        span("b", "2.5%", "Rates \u2014 Margin, 2018: 2.5%"),
    ]
    assert _run("The margin rose 150 basis points in 2019.", cells)[1] == "recomputed"


def test_will_not_establish_a_change_whose_order_is_unknown() -> None:
    cells = [span("a", "44.1"), span("b", "56.7")]
    assert _run("The change in Other sales was 12.6 million.", cells)[:2] == (
        Outcome.SKIP,
        "not_reproduced",
    )


def test_accepts_an_unordered_difference_only_as_a_magnitude() -> None:
    cells = [span("a", "44.1"), span("b", "56.7")]
    assert _run("The difference between the two is 12.6.", cells)[1] == "recomputed"
    assert _run("The difference between the two is -12.6.", cells)[1] != "recomputed"


def test_skips_when_a_bracketed_figure_makes_the_sign_ambiguous() -> None:
    cells = [
        span("a", "(135)", "Allowance \u2014 Credit losses, 2019: (135)"),
        span("b", "(23)", "Allowance \u2014 Credit losses, 2018: (23)"),
    ]
    assert _run("The change in credit losses from 2018 to 2019 was -112.", cells)[:2] == (
        Outcome.SKIP,
        "sign_ambiguous",
    )


def test_skips_a_claim_without_a_figure() -> None:
    assert _run("Other sales fell sharply.")[:2] == (Outcome.SKIP, "unparseable")


def test_skips_when_the_spans_have_no_figures() -> None:
    spans = [span("a", "Other sales fell.")]
    assert _run("Other sales fell by 12.6 million.", spans)[:2] == (Outcome.SKIP, "no_operands")


def test_skips_an_implicit_claim_that_nothing_reproduces() -> None:
    assert _run("Other sales in 2019 were 71.3.")[:2] == (Outcome.SKIP, "not_reproduced")


def test_skips_non_computational_claims() -> None:
    result, claimed = check_computation("Sales fell by 12.6.", ClaimType.FACTUAL, CELLS)
    assert (result.outcome, result.reason, claimed) == (Outcome.SKIP, "not_computational", None)


def test_orders_a_change_by_fiscal_years_written_as_fy19() -> None:
    cells = [
        span("a", "59,495", "Emissions \u2014 Scope 1, FY19**: 59,495"),
        span("b", "66,336", "Emissions \u2014 Scope 1, FY18**: 66,336"),
    ]
    assert _run("The change in Scope 1 from FY18 to FY19 is -6,841.", cells)[:2] == (
        Outcome.PASS,
        "recomputed",
    )
    assert _run("The change in Scope 1 from FY18 to FY19 is 6,841.", cells)[:2] == (
        Outcome.FAIL,
        "recompute_mismatch",
    )


def test_will_not_reproduce_a_result_that_leaves_a_cited_figure_unused() -> None:
    cells = [*CELLS, span("c17", "70.8", f"{TITLE}, 2017: 70.8")]
    outcome, reason, detail = _run("Other sales averaged 50.4 million in 2018 and 2019.", cells)
    assert (outcome, reason) == (Outcome.SKIP, "not_reproduced")
    assert "70.8" in detail


def test_counts_a_figure_two_spans_write_alike_as_used_by_both() -> None:
    spans = [
        span("a", "The expected salary increase was 2.5% in 2018."),
        span("b", "2.5%", "Rates \u2014 Salary increase, 2018: 2.5%"),
        span("c", "3.0%", "Rates \u2014 Salary increase, 2017: 3.0%"),
    ]
    claim = "The change in salary increase from 2017 to 2018 is -0.5%."
    assert _run(claim, spans)[:2] == (Outcome.PASS, "recomputed")


def test_reads_a_plain_figure_as_percent_when_its_label_gives_percent() -> None:
    cells = row_cells("ROFE (%)", ("F19", "15.2"), ("F18", "17.1"))
    assert _run("The average ROFE for F19 and F18 is 16.15%.", cells)[1] == "recomputed"
    assert _run("The average ROFE for F19 and F18 is 161.5%.", cells)[1] != "recomputed"


def test_does_not_read_figures_as_percent_under_a_unit_note_that_excepts_percentages() -> None:
    cells = row_cells("Rent", ("2019 (in thousands, except percentages)", "15.2"))
    cells += row_cells("Rent", ("2018 (in thousands, except percentages)", "17.1"))
    assert _run("The average rent for 2019 and 2018 is 16.15%.", cells)[1] != "recomputed"


def test_establishes_a_result_that_holds_when_brackets_are_read_as_negatives() -> None:
    cells = row_cells("Other comprehensive income", ("2018", "$(7)"), ("2017", "$10"))
    outcome, reason, detail = _run("The change in it from 2017 to 2018 is -17.", cells)
    assert (outcome, reason) == (Outcome.PASS, "recomputed")
    assert "read as negatives" in detail


@pytest.mark.parametrize(
    "text",
    [
        # the sign flip: no reading gives it
        "The change in it from 2017 to 2018 is 17.",
        # the bracket's sign dropped: 7 - 10
        "The change in it from 2017 to 2018 is -3.",
    ],
)
def test_does_not_establish_a_sign_flip_or_a_dropped_bracket(text: str) -> None:
    cells = row_cells("Other comprehensive income", ("2018", "$(7)"), ("2017", "$10"))
    assert _run(text, cells)[1] != "recomputed"


@pytest.mark.parametrize("figure", ["-168", "168"])
def test_keeps_the_sign_ambiguous_when_the_other_reading_gives_the_opposite_figure(
    figure: str,
) -> None:
    cells = row_cells("Interest income", ("2019", "(197)"), ("2018", "(101)"), ("2017", "(206)"))
    assert _run(f"The average interest income is {figure}.", cells)[1] == "sign_ambiguous"


def test_will_not_establish_a_percent_change_from_a_negative_base_by_the_convention() -> None:
    cells = row_cells("Net income (loss)", ("2019", "$542.0"), ("2018", "$(762.3)"))
    for figure in ("171.1%", "-171.1%"):
        text = f"The percentage change in net income from 2018 to 2019 is {figure}."
        assert _run(text, cells)[1] != "recomputed"


def test_will_not_contradict_a_percent_change_from_a_negative_base_of_either_sign() -> None:
    # Reports write the sign of such a change either way: neither sign is wrong arithmetic.
    cells = row_cells("Net income (loss)", ("2019", "$542.0"), ("2018", "$(762.3)"))
    for figure in ("171.1%", "-171.1%"):
        text = f"The percentage change in net income from 2018 to 2019 is {figure}."
        outcome, reason, detail = _run(text, cells)
        assert (outcome, reason) == (Outcome.SKIP, "not_reproduced")
        assert "no agreed sign" in detail


def test_will_not_compute_from_figures_outside_the_years_the_claim_names() -> None:
    cells = row_cells("Tamil films", ("Year ended March 31, 2019", "3"), ("March 31, 2018", "1"))
    assert _run("The change in Tamil films from 2018 to 2019 is 2.", cells)[1] == "recomputed"
    outcome, reason, _ = _run("The change in Tamil films from 2017 to 2018 is 2.", cells)
    assert (outcome, reason) == (Outcome.SKIP, "not_reproduced")


def test_orders_two_quarters_of_one_year() -> None:
    cells = row_cells(
        "Revenues",
        ("Fiscal 2019 Second Quarter", "$96,037"),
        ("Fiscal 2019 First Quarter", "$94,888"),
    )
    assert _run("The change in revenues in fiscal 2019 is 1,149.", cells)[1] == "recomputed"
    assert _run("The change in revenues in fiscal 2019 is -1,149.", cells)[1] != "recomputed"


def test_recomputes_a_product_of_shares_and_price() -> None:
    cells = [
        span("n", "1,686,902", "Table \u2014 Outstanding at September 30, 2019, Shares: 1,686,902"),
        span("p", "7.00", "Table \u2014 Outstanding at September 30, 2019, Price: 7.00"),
    ]
    outcome, reason, detail = _run("The value of outstanding shares is 11,808,314.", cells)
    assert (outcome, reason) == (Outcome.PASS, "recomputed")
    assert "product" in detail
    assert _run("The value of outstanding shares is 118,083,140.", cells)[1] != "recomputed"


def test_tries_a_product_only_for_a_claim_that_names_no_operation() -> None:
    cells = [span("a", "3", "Table \u2014 A, 2019: 3"), span("b", "4", "Table \u2014 B, 2019: 4")]
    assert _run("The sum of A and B in 2019 is 12.", cells)[1] != "recomputed"


def test_recomputes_the_share_of_a_sum_in_a_total() -> None:
    cells = [
        span("a", "425", "Tax assets (in thousands) \u2014 Deferred revenue, 2019: 425"),
        span("b", "33", "Tax assets (in thousands) \u2014 Accrued warranty, 2019: 33"),
        span("c", "38,771", "Tax assets (in thousands) \u2014 Gross, 2019: 38,771"),
    ]
    claim = "Deferred revenue and accrued warranty as a percentage of gross tax assets is {}."
    assert _run(claim.format("1.18%"), cells)[1] == "recomputed"
    assert _run(claim.format("11.8%"), cells)[1] != "recomputed"


def test_reads_a_claim_without_a_scale_word_in_the_unit_its_table_declares() -> None:
    cells = row_cells("Earnings per share ($M)", ("2019", "206.2"), ("2018", "132.6"))
    assert _run("The average earnings per share for 2018 and 2019 is 169.4.", cells)[1] == (
        "recomputed"
    )
    assert _run("The average earnings per share for 2018 and 2019 is 1,694.", cells)[1] != (
        "recomputed"
    )


def test_takes_the_cue_that_heads_the_claim_as_its_operation() -> None:
    cells = row_cells("Cost of revenue", ("2017", "55%"), ("2018", "50%"))
    text = "The average proportion of cost of revenue as a percentage of revenue is {}."
    assert _run(text.format("52.5%"), cells)[:2] == (Outcome.PASS, "recomputed")
    assert _run(text.format("54.1%"), cells)[:2] == (Outcome.FAIL, "recompute_mismatch")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 999), st.booleans()), min_size=2, max_size=3),
    st.sampled_from(["change", "difference", "average", "sum", "ratio"]),
)
def test_never_recomputes_both_a_figure_and_its_sign_flip(
    figures: list[tuple[int, bool]], operation: str
) -> None:
    cells = [
        span(f"c{i}", f"({n})" if bracketed else str(n), f"T \u2014 X, {2019 - i}: " + str(n))
        for i, (n, bracketed) in enumerate(figures)
    ]
    values = [-n if bracketed else n for n, bracketed in figures]
    magnitudes = [n for n, _ in figures]
    candidates = {
        "change": [values[0] - values[1], magnitudes[0] - magnitudes[1]],
        "difference": [values[0] - values[1], magnitudes[0] - magnitudes[1]],
        "average": [sum(values) / len(values), sum(magnitudes) / len(magnitudes)],
        "sum": [sum(values), sum(magnitudes)],
        "ratio": [values[0] / values[1], magnitudes[0] / magnitudes[1]],
    }[operation]
    years = f"from {2020 - len(figures)} to 2019"
    for value in candidates:
        if round(value, 2) == 0:
            # Written to two places, 0.00 and -0.00 are one figure, not a sign flip.
            continue
        verdicts = [
            _run(f"The {operation} of X {years} is {v:.2f}.", cells)[1] == "recomputed"
            for v in (value, -value)
        ]
        assert not all(verdicts), (figures, operation, value)


@pytest.mark.parametrize(
    ("text", "holds"),
    [
        ("Other sales fell by more than 10 million from 2018 to 2019.", True),
        ("Other sales fell by more than 12.6 million from 2018 to 2019.", False),
        ("Other sales fell by over 15 million from 2018 to 2019.", False),
        ("Other sales fell by at least 12.6 million from 2018 to 2019.", True),
        ("Other sales fell by less than 15 million from 2018 to 2019.", True),
        ("Other sales fell by less than 12 million from 2018 to 2019.", False),
        ("Other sales fell by up to 12.6 million from 2018 to 2019.", True),
        ("Other sales rose by more than 10 million from 2018 to 2019.", False),
    ],
)
def test_a_bound_on_the_claimed_figure_is_compared_as_a_bound(text: str, holds: bool) -> None:
    outcome, reason, _ = _run(text)
    if holds:
        assert (outcome, reason) == (Outcome.PASS, "recomputed")
    else:
        assert outcome is not Outcome.PASS


def test_up_to_is_a_bound_not_a_rise() -> None:
    outcome, reason, _ = _run("Other sales decreased by up to 12.6 million from 2018 to 2019.")
    assert (outcome, reason) == (Outcome.PASS, "recomputed")


CASH = "Net cash provided by (used in) investing activities"


@pytest.mark.parametrize(
    ("label", "head"),
    [
        (CASH, "2018"),
        ("Operating income (loss)", "2018"),
        ("Voyage expenses", "Increase (decrease) 2018"),
        ("Other income (expense), net", "2018"),
    ],
)
def test_reads_brackets_as_negative_where_the_label_writes_its_negative_side_in_brackets(
    label: str, head: str
) -> None:
    cells = row_cells(label, (head, "(114)"), (head.replace("2018", "2017"), "(71)"))
    claimed = "The change in it from 2017 to 2018 is"
    assert _run(f"{claimed} -43 million.", cells)[:2] == (Outcome.PASS, "recomputed")
    assert _run(f"{claimed} 43 million.", cells)[1] != "recomputed"


def test_still_reads_both_ways_the_brackets_of_a_label_that_declares_no_sign() -> None:
    cells = row_cells("Interest expense", ("2018", "(114)"), ("2017", "(71)"))
    for figure in ("-43", "43"):
        claimed = f"The change in interest expense from 2017 to 2018 is {figure} million."
        assert _run(claimed, cells)[1] == "sign_ambiguous"


@pytest.mark.parametrize(
    ("head", "signed"),
    [
        ("Operating income (loss), 2019", True),
        ("Net cash provided by (used in) investing activities, 2019", True),
        ("Voyage expenses, Increase (decrease) 2019", True),
        ("Revenue, Increase (decrease) 2019", True),
        ("Other income (expense), net, 2019", True),
        ("Losses recognized in other income (expense), net, 2019", False),
        ("Income tax expense (benefit), 2019", True),
        ("Gain (loss) on sale of assets, 2019", True),
        ("Transfers (Note (b)), 2019", False),
        ("Interest expense, 2019", False),
    ],
)
def test_a_label_signs_its_brackets_only_where_it_names_no_negative_side_outside_them(
    head: str, signed: bool
) -> None:
    assert signed_label(head) is signed


def test_a_figure_that_rounds_the_result_too_coarsely_to_check_is_not_reproduced() -> None:
    # -0.08% written with one decimal is -0.1%: beyond the rounding cap, but not wrong.
    cells = row_cells("Fossil fuels", ("2004", "36,205"), ("2003", "36,234"))
    text = "The percentage change in fossil fuels from 2003 to 2004 is -0.1%."
    assert _run(text, cells)[:2] == (Outcome.SKIP, "not_reproduced")
    assert _run(text.replace("-0.1%", "-0.3%"), cells)[:2] == (Outcome.FAIL, "recompute_mismatch")
