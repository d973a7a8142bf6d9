"""The computation check over cells that state a change (``Change 2019 over 2018``): the change
over a longer period is the sum of the changes of the periods it is made of."""

from __future__ import annotations

import pytest

from ledger.gate.computation.check import check_computation
from ledger.gate.computation.operands import change_interval
from ledger.gate.model import ClaimType, Outcome, SpanFacts
from tests.unit.gate._facts import row_cells

C = ClaimType.COMPUTATIONAL
# Net sales of one segment (in thousands): 2017 2,941,324; 2018 2,244,044; 2019 3,063,117.
CHANGES = row_cells(
    "Net sales",
    ("Change 2019 over 2018", "$ 819,073"),
    ("Change 2018 over 2017", "$(697,280)"),
)
LEVEL_2017 = row_cells("Net sales", ("Years Ended 2017", "$ 2,941,324"))
GENERAL = row_cells(
    "Total change in general and administrative expenses",
    ("Change between Fiscal increase (decrease) 2019 and 2018", "$2,682"),
    ("Change between Fiscal increase (decrease) 2018 and 2017", "$34,874"),
)


def _run(text: str, spans: list[SpanFacts]) -> tuple[Outcome, str, str]:
    result, _ = check_computation(text, C, spans)
    return result.outcome, result.reason, result.detail


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        ("Modules, Change 2018 over 2017", ("Modules", 2017, 2018)),
        ("Net sales, 2019 vs. 2018", ("Net sales", 2018, 2019)),
        ("Revenue, Increase (decrease) 2019 compared to 2018", ("Revenue", 2018, 2019)),
        ("Revenue, Years Ended December 31, 2019", None),
        ("Revenue, 2019 2018", None),
        ("Revenue, Change 2019", None),
        ("Revenue", None),
    ],
)
def test_reads_the_two_years_a_change_cell_states_the_change_between(
    head: str, expected: tuple[str, int, int] | None
) -> None:
    assert change_interval(head) == expected


def test_recomputes_the_change_over_two_periods_as_the_sum_of_their_changes() -> None:
    outcome, reason, detail = _run(
        "The total change in general and administrative expenses from fiscal year 2017 to "
        "2019 is 37,556 thousand.",
        GENERAL,
    )
    assert (outcome, reason) == (Outcome.PASS, "recomputed")
    assert "$2,682" in detail
    assert "$34,874" in detail


def test_recomputes_a_difference_over_two_periods_from_a_rise_and_a_bracketed_fall() -> None:
    assert _run(
        "The net difference in net sales between 2017 and 2019 is 121,793 thousand.", CHANGES
    )[:2] == (Outcome.PASS, "recomputed")


def test_recomputes_the_percent_change_over_two_periods_from_their_changes_and_the_base() -> None:
    outcome, reason, _ = _run(
        "The net percentage difference in net sales between 2017 and 2019 is 4.14%.",
        [*CHANGES, *LEVEL_2017],
    )
    assert (outcome, reason) == (Outcome.PASS, "recomputed")


@pytest.mark.parametrize(
    "text",
    [
        # The sign flip, ten times the figure, 3% more.
        "The total change in general and administrative expenses from fiscal year 2017 to "
        "2019 is -37,556 thousand.",
        "The total change in general and administrative expenses from fiscal year 2017 to "
        "2019 is 375,560 thousand.",
        "The total change in general and administrative expenses from fiscal year 2017 to "
        "2019 is 38,682.68 thousand.",
        # The periods one year earlier: the cells do not cover 2016 to 2018.
        "The total change in general and administrative expenses from fiscal year 2016 to "
        "2018 is 37,556 thousand.",
        # One of the two periods only.
        "The total change in general and administrative expenses from fiscal year 2018 to "
        "2019 is 37,556 thousand.",
        # No years: which periods the sum covers is not said.
        "The total change in general and administrative expenses is 37,556 thousand.",
    ],
)
def test_does_not_recompute_a_wrong_or_misdated_change_over_two_periods(text: str) -> None:
    assert _run(text, GENERAL)[1] != "recomputed"


def test_does_not_chain_changes_of_two_lines() -> None:
    cells = [
        *row_cells("Modules", ("Change 2019 over 2018", "$ 958,115")),
        *row_cells("Systems", ("Change 2018 over 2017", "$ 392,883")),
    ]
    assert _run("The change in sales between 2017 and 2019 is 1,350,998 thousand.", cells)[1] != (
        "recomputed"
    )


def test_does_not_chain_changes_with_a_gap_between_their_periods() -> None:
    cells = row_cells(
        "Net sales", ("Change 2019 over 2018", "$ 819,073"), ("Change 2017 over 2016", "$ 697,280")
    )
    assert _run("The change in net sales from 2016 to 2019 is 1,516,353 thousand.", cells)[1] != (
        "recomputed"
    )


def test_does_not_sum_percent_change_columns_as_a_change_over_two_periods() -> None:
    cells = row_cells(
        "Net sales", ("Change 2019 over 2018 (%)", "36.5"), ("Change 2018 over 2017 (%)", "23.7")
    )
    assert _run("The percentage change in net sales from 2017 to 2019 is 60.2%.", cells)[1] != (
        "recomputed"
    )


def test_leaves_a_difference_over_two_falls_unverified_when_brackets_may_be_deductions() -> None:
    # Both falls bracketed: read as positive, they give a rise of the same size.
    cells = row_cells(
        "Systems", ("Change 2019 over 2018", "(139,042)"), ("Change 2018 over 2017", "(392,883)")
    )
    for figure in ("531,925", "-531,925"):
        text = f"The net difference in sale of systems between 2017 and 2019 is {figure} thousand."
        assert _run(text, cells)[1] == "sign_ambiguous"
