"""The computation check, continued: sums over many figures, totals, periods and sums of lines."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.gate import Status, judge
from ledger.gate.computation.check import check_computation
from ledger.gate.model import ClaimType, Outcome, SpanFacts
from tests.unit.gate._facts import claim, row_cells, span

C = ClaimType.COMPUTATIONAL
TITLE = "Sales by contract type (in millions) \u2014 Other"
CELLS = [
    span("c19", "44.1", f"{TITLE}, 2019: 44.1"),
    span("c18", "56.7", f"{TITLE}, 2018: 56.7"),
]


LEASES = [("2020", "47"), ("2021", "28"), ("2022", "22"), ("2023", "22"), ("2024", "21")]


def _run(text: str, spans: list[SpanFacts] = CELLS) -> tuple[Outcome, str, str]:
    result, _ = check_computation(text, C, spans)
    return result.outcome, result.reason, result.detail


def test_sums_and_averages_every_cited_figure_beyond_the_subset_limit() -> None:
    cells = row_cells(
        "Finance leases",
        *LEASES,
    )
    assert _run("The sum of finance leases from 2020 to 2024 is 140 million.", cells)[:2] == (
        Outcome.PASS,
        "recomputed",
    )
    assert _run("The average finance leases from 2020 to 2024 is 28 million.", cells)[1] == (
        "recomputed"
    )


@pytest.mark.parametrize(
    "text",
    [
        "The sum of finance leases from 2020 to 2024 is 118 million.",
        "The sum of finance leases from 2020 to 2024 is -140 million.",
        "The sum of finance leases from 2020 to 2024 is 1,400 million.",
        "The average finance leases from 2020 to 2024 is 23.6 million.",
    ],
)
def test_does_not_recompute_a_wrong_sum_or_average_of_every_cited_figure(text: str) -> None:
    cells = row_cells(
        "Finance leases",
        *LEASES,
    )
    assert _run(text, cells)[1] != "recomputed"


def test_reads_equal_figures_of_two_table_lines_as_two_figures() -> None:
    cells = [
        span(f"n{i}", n, f"Debt (In millions) \u2014 {name}, December 31, 2019: {n}")
        for i, (name, n) in enumerate(
            [("4.875% Notes", "421.9"), ("5.25% Notes", "422.0"), ("5.125% Notes", "421.9")]
        )
    ]
    text = "The total carrying amount of the Notes as of December 31, 2019 is {} million."
    assert _run(text.format("1,265.8"), cells)[1] == "recomputed"
    assert _run(text.format("843.9"), cells)[1] != "recomputed"


def test_still_reads_a_sentence_restating_a_cell_as_one_figure() -> None:
    cells = [
        span("c", "44.1", "Sales (in millions) \u2014 Other, 2019: 44.1"),
        span("d", "56.7", "Sales (in millions) \u2014 Other, 2018: 56.7"),
        span("s", "Other sales were $44.1 million in 2019."),
    ]
    assert _run("Other sales fell by 12.6 million from 2018 to 2019.", cells)[1] == "recomputed"


def test_reads_a_total_percentage_of_percentages_as_their_sum() -> None:
    cells = [
        span("a", "34%", "Revenue from significant customers \u2014 Apple, Fiscal Year 2017: 34%"),
        span("h", "11%", "Revenue from significant customers \u2014 Huawei, Fiscal Year 2017: 11%"),
    ]
    text = "The total percentage of revenue from Apple and Huawei in 2017 is {}."
    assert _run(text.format("45%"), cells)[:2] == (Outcome.PASS, "recomputed")
    assert _run(text.format("-45%"), cells)[1] != "recomputed"
    assert _run(text.format("23%"), cells)[:2] == (Outcome.FAIL, "recompute_mismatch")
    assert _run(text.format("450%"), cells)[1] != "recomputed"


def test_reads_a_total_percentage_of_amounts_as_a_ratio() -> None:
    cells = [
        span("a", "$25", "Costs \u2014 Rent, 2019: $25"),
        span("b", "$100", "Costs \u2014 Total, 2019: $100"),
    ]
    assert _run("The total percentage of rent in costs in 2019 is 25%.", cells)[1] == "recomputed"
    assert _run("The total percentage of rent in costs in 2019 is 125%.", cells)[1] != "recomputed"


def test_a_total_percentage_change_is_still_a_percent_change() -> None:
    cells = row_cells("Shares", ("2019", "92.2"), ("2017", "100"))
    assert _run("The total percentage change in shares from 2017 to 2019 is -7.8%.", cells)[1] == (
        "recomputed"
    )
    assert _run("The total percentage change in shares from 2017 to 2019 is 192.2%.", cells)[1] != (
        "recomputed"
    )


def test_reads_a_proportion_in_percentage_of_a_sum_over_a_total() -> None:
    cells = row_cells(
        "Net sales", ("Grocery", "3,287.0"), ("Frozen", "2,753.0"), ("Total", "7,938.3")
    )
    text = "The proportion (in percentage) of the sum of Grocery and Frozen over total is {}."
    assert _run(text.format("76.09%"), cells)[1] == "recomputed"
    assert _run(text.format("7.609%"), cells)[1] != "recomputed"


def test_reads_a_difference_from_an_earlier_year_to_a_later_one_as_a_change() -> None:
    cells = row_cells("Net cash", ("2019", "$14,551"), ("2018", "$15,386"))
    text = "The difference in net cash from 2018 to 2019 is {} million."
    assert _run(text.format("-835"), cells)[:2] == (Outcome.PASS, "recomputed")
    assert _run(text.format("835"), cells)[:2] == (Outcome.FAIL, "recompute_mismatch")
    assert _run(text.format("-8,350"), cells)[:2] == (Outcome.FAIL, "recompute_mismatch")


def test_a_difference_between_two_years_is_still_a_magnitude() -> None:
    cells = row_cells("Net cash", ("2019", "$14,551"), ("2018", "$15,386"))
    text = "The difference in net cash between 2018 and 2019 is {} million."
    assert _run(text.format("835"), cells)[1] == "recomputed"
    assert _run(text.format("-835"), cells)[1] != "recomputed"


PERCENT_OF_SALES = (
    "The following table sets forth, for the periods indicated, the percentage of sales "
    "represented by certain items \u2014 Gross profit, Year Ended December 31, {}: {}"
)


def _percent_of_sales(title: str = PERCENT_OF_SALES) -> list[SpanFacts]:
    return [
        span("g19", "40.0", title.format(2019, "40.0")),
        span("g18", "50.9", title.format(2018, "50.9")),
    ]


def test_reads_figures_as_percent_when_claim_and_caption_name_the_same_percentage() -> None:
    text = (
        "The change in percentage of sales represented by gross profit between 2018 and 2019 is {}."
    )
    outcome, reason, detail = _run(text.format("-10.9%"), _percent_of_sales())
    assert (outcome, reason) == (Outcome.PASS, "recomputed")
    assert "40.0 [2019-12-31] - 50.9 [2018-12-31]" in detail
    # The sign flip, a tenfold and a 3% error are contradicted, not verified.
    for wrong in ("10.9%", "-109%", "-11.23%"):
        assert _run(text.format(wrong), _percent_of_sales())[:2] == (
            Outcome.FAIL,
            "recompute_mismatch",
        )


def test_does_not_read_a_caption_percentage_the_claim_does_not_name() -> None:
    # The claim measures another percentage than the caption's: the caption gives no unit.
    text = "The change in percentage of revenue from gross profit between 2018 and 2019 is -10.9%."
    assert _run(text, _percent_of_sales())[1] != "recomputed"
    # The caption names no percentage: the claim alone does not make the cells percentages.
    plain = "Statement of operations \u2014 Gross profit, Year Ended December 31, {}: {}"
    claim = "The change in percentage of sales represented by gross profit between 2018 and 2019"
    assert _run(f"{claim} is -10.9%.", _percent_of_sales(plain))[1] != "recomputed"


FOODSERVICE = [
    span("i19", "793.4", "($ in millions) \u2014 International, Fiscal 2019 Net Sales: 793.4"),
    span("f19", "934.2", "($ in millions) \u2014 Foodservice, Fiscal 2019 Net Sales: 934.2"),
    span("i18", "843.5", "($ in millions) \u2014 International, Fiscal 2018 Net Sales: 843.5"),
    span("f18", "1,054.8", "($ in millions) \u2014 Foodservice, Fiscal 2018 Net Sales: 1,054.8"),
]


def test_recomputes_the_percent_change_of_a_sum_of_lines_between_two_periods() -> None:
    text = (
        "The percentage change in net sales of International and Foodservice "
        "from 2018 to 2019 is {}."
    )
    outcome, reason, detail = _run(text.format("-8.99%"), FOODSERVICE)
    assert (outcome, reason) == (Outcome.PASS, "recomputed")
    assert detail.startswith(
        "percent_change: ((793.4 [2019] + 934.2 [2019]) - (843.5 [2018] + 1,054.8 [2018]))"
    )
    for wrong in ("8.99%", "-89.9%", "-9.26%"):
        assert _run(text.format(wrong), FOODSERVICE)[1] != "recomputed"


def test_recomputes_the_change_of_a_sum_of_lines_between_two_periods() -> None:
    text = (
        "The change in net sales of International and Foodservice from 2018 to 2019 is {} million."
    )
    assert _run(text.format("-170.7"), FOODSERVICE)[:2] == (Outcome.PASS, "recomputed")
    for wrong in ("170.7", "-1,707", "-175.8"):
        assert _run(text.format(wrong), FOODSERVICE)[1] != "recomputed"


def test_does_not_sum_lines_of_unequal_groups_or_of_one_period() -> None:
    # Three lines of 2019 against one of 2018 are not the same lines in two periods.
    uneven = [*FOODSERVICE[:2], FOODSERVICE[2], span("x19", "10.0", "T \u2014 X, 2019: 10.0")]
    text = "The percentage change in net sales from 2018 to 2019 is {}."
    assert _run(text.format("107.2%"), uneven)[1] != "recomputed"
    same_year = [span(f"s{i}", v, f"T \u2014 L{i}, 2019: {v}") for i, v in enumerate("1234")]
    assert _run("The change in sales from 2018 to 2019 is 4.", same_year)[1] != "recomputed"


def test_a_weighted_average_names_a_line_not_an_average() -> None:
    cells = row_cells("Weighted average hedged rate", ("2019", "2.10%"), ("2018", "1.60%"))
    text = "The weighted average hedged rate change from 2018 to 2019 is {}."
    outcome, reason, detail = _run(text.format("0.5%"), cells)
    assert (outcome, reason) == (Outcome.PASS, "recomputed")
    assert detail.startswith("percent_change: 2.10% [2019] - 1.60% [2018]")
    assert _run(text.format("1.85%"), cells)[1] != "recomputed"
    assert _run(text.format("-0.5%"), cells)[1] != "recomputed"


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 999), st.booleans()), min_size=4, max_size=4),
    st.sampled_from(["change", "percentage change"]),
)
def test_never_recomputes_both_a_change_of_sums_and_its_sign_flip(
    figures: list[tuple[int, bool]], operation: str
) -> None:
    cells = [
        span(f"c{i}", f"({n})" if bracketed else str(n), f"T \u2014 L{i % 2}, {2019 - i // 2}: {n}")
        for i, (n, bracketed) in enumerate(figures)
    ]
    values = [-n if bracketed else n for n, bracketed in figures]
    magnitudes = [n for n, _ in figures]
    for read in (values, magnitudes):
        new, old = read[0] + read[1], read[2] + read[3]
        value = new - old if operation == "change" else (new - old) / abs(old or 1) * 100
        if value == 0:
            continue
        unit = "%" if operation != "change" else ""
        verdicts = [
            _run(f"The {operation} of X from 2018 to 2019 is {v:.2f}{unit}.", cells)[1]
            == "recomputed"
            for v in (value, -value)
        ]
        assert not all(verdicts), (figures, operation, value)


def test_a_base_summing_to_zero_under_one_reading_gives_no_percent_change() -> None:
    # 1 + (1) is 0 with the bracket read as negative: that reading gives no percent change.
    cells = [
        span("a19", "1", "T \u2014 A, 2019: 1"),
        span("b19", "1", "T \u2014 B, 2019: 1"),
        span("a18", "1", "T \u2014 A, 2018: 1"),
        span("b18", "(1)", "T \u2014 B, 2018: (1)"),
    ]
    text = "The percentage change of X from 2018 to 2019 is {}."
    assert _run(text.format("0%"), cells)[1] != "recomputed"
    assert _run(text.format("-0%"), cells)[1] != "recomputed"


@pytest.mark.parametrize(
    "text",
    [
        "The average revenue over the three years is 15 million.",
        "The average revenue over the 3 years is 15 million.",
        "The total revenue of the three fiscal years is 30 million.",
        "The average revenue over a three-year period is 15 million.",
    ],
)
def test_does_not_average_two_years_for_a_claim_about_three(text: str) -> None:
    cells = row_cells("Revenue", ("2018", "10"), ("2019", "20"))
    assert _run(text, cells)[1] != "recomputed"


@pytest.mark.parametrize(
    ("text", "figures"),
    [
        ("The average revenue over the three years is 15 million.", 3),
        ("The average revenue over the two years is 15 million.", 2),
        ("The total revenue of both years is 30 million.", 2),
        ("The total revenue for the three months ended March 31 is 30 million.", 2),
    ],
)
def test_averages_as_many_years_as_the_claim_counts(text: str, figures: int) -> None:
    cells = row_cells("Revenue", *[("2017", "15"), ("2018", "10"), ("2019", "20")][-figures:])
    assert _run(text, cells)[:2] == (Outcome.PASS, "recomputed")


FISCAL = [
    span(
        f"c{i}",
        v,
        f"Cash flows (in millions) \u2014 Net cash used in financing activities, {d}: {v}",
    )
    for i, (d, v) in enumerate(
        [
            ("January 3, 2020", "(709)"),
            ("December 28, 2018", "(707)"),
            ("December 29, 2017", "(429)"),
        ]
    )
]


def test_reads_a_fiscal_year_that_ends_in_the_first_week_of_january_as_the_year_before() -> None:
    text = (
        "The average Net cash used in financing activities between fiscal years 2017-2019 is "
        "615 million."
    )
    verdict = judge(
        claim(text, *(s.span_id for s in FISCAL), type=C), {s.span_id: s for s in FISCAL}
    )
    assert verdict.status is not Status.REJECTED, verdict.checks
    assert _run(text, FISCAL)[1] in ("recomputed", "sign_ambiguous")


def test_does_not_read_a_january_date_as_the_year_before_for_a_calendar_claim() -> None:
    text = "The average Net cash used in financing activities between 2017 and 2019 is 615 million."
    verdict = judge(
        claim(text, *(s.span_id for s in FISCAL), type=C), {s.span_id: s for s in FISCAL}
    )
    assert verdict.status is not Status.VERIFIED


RATIO_CELLS = [
    span(f"{line[:6]}{y}", v, f"Parent (US$'000) \u2014 Total current {line}, {y}: {v}")
    for line, y, v in (
        ("assets", "2019", "121,041"),
        ("liabilities", "2019", "154,619"),
        ("assets", "2018", "73,202"),
        ("liabilities", "2018", "90,392"),
    )
]


def test_recomputes_the_change_of_a_ratio_of_two_lines_between_two_periods() -> None:
    # 121,041 / 154,619 - 73,202 / 90,392 = 0.7828 - 0.8098 = -0.027
    text = "The change in current ratio from 2018 to 2019 is -0.027."
    outcome, reason, detail = _run(text, RATIO_CELLS)
    assert (outcome, reason) == (Outcome.PASS, "recomputed"), detail


@pytest.mark.parametrize(
    "text",
    [
        "The change in current ratio from 2018 to 2019 is 0.027.",
        "The change in current ratio from 2018 to 2019 is -0.27.",
        "The change in current assets from 2018 to 2019 is -0.027.",
        "The change in current ratio from 2017 to 2018 is -0.027.",
    ],
)
def test_does_not_recompute_a_wrong_or_unnamed_change_of_a_ratio(text: str) -> None:
    assert _run(text, RATIO_CELLS)[1] != "recomputed"
