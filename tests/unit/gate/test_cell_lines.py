"""A computational claim over table cells names their line and their periods.

The title of a table speaks for all of its lines, so a claim whose words are found only there
may name another line of the table; and a claim about one year is not computed from a later
year's figures. The attacker direction of each rule is the swap the evaluation builds
(``benchmarks.tatqa_cases.line_swap`` and ``period_swap``): the correct figure, claimed of
another line or of other periods, citing the same cells.
"""

from __future__ import annotations

from ledger.gate import ClaimType, Status, judge
from ledger.gate.anchors.reading import read_text
from ledger.gate.computation.check import check_computation
from ledger.gate.model import Outcome, SpanFacts
from ledger.gate.support.lines import check_line_named, section_of
from tests.unit.gate._facts import claim, span

C = ClaimType.COMPUTATIONAL
TITLE = "Prepaid expenses and other consist of the following (in thousands): December 31,"
OTHER_ASSETS = {
    "a19": span("a19", "193", f"{TITLE} \u2014 Other current assets, 2019: 193"),
    "a18": span("a18", "167", f"{TITLE} \u2014 Other current assets, 2018: 167"),
}
SALES = {
    "s19": span("s19", "$ 328.8", "Table \u2014 Sales, Fiscal 2019 (in millions): $ 328.8"),
    "s18": span("s18", "$ 207.0", "Table \u2014 Sales, Fiscal 2018 (in millions): $ 207.0"),
}


def _cited(facts: SpanFacts) -> tuple[str, str]:
    """A cited cell as the line check reads it: its envelope and its value."""
    return facts.envelope or "", facts.text


def _status(text: str, spans: dict[str, object]) -> tuple[Status, set[str]]:
    verdict = judge(claim(text, *spans, type=C), spans)  # type: ignore[arg-type]
    return verdict.status, {c.reason for c in verdict.checks}


def test_verifies_a_computation_whose_claim_names_the_line_of_its_cells() -> None:
    status, _ = _status(
        "The average value of Other current assets in 2018 and 2019 is 180.", OTHER_ASSETS
    )
    assert status is Status.VERIFIED


def test_leaves_a_claim_naming_another_line_of_the_table_unverified() -> None:
    # Every word of the claim is in the cells' title, none in their row label or header.
    status, reasons = _status(
        "The average value of Prepaid expenses in 2018 and 2019 is 180.", OTHER_ASSETS
    )
    assert status is Status.UNVERIFIED
    assert "support_line_unnamed" in reasons


def test_says_which_line_the_claim_does_not_name() -> None:
    result = check_line_named(
        read_text("The average value of Prepaid expenses is 180."),
        [_cited(OTHER_ASSETS["a19"])],
    )
    assert result is not None
    assert (result.outcome, result.reason) == (Outcome.FAIL, "support_line_unnamed")
    assert "'Other current assets, 2019'" in result.detail


def test_counts_other_and_total_as_words_that_name_a_line() -> None:
    cells = [
        ("Revenue by location (in thousands) \u2014 EMEA: Total Other, 2018: 95", "95"),
        ("Revenue by location (in thousands) \u2014 EMEA: Total Other, 2017: 82", "82"),
    ]
    assert (
        check_line_named(read_text("The change in Total Other in 2018 from 2017 is 13."), cells)
        is None
    )


def test_asks_nothing_of_a_cell_whose_line_has_no_words() -> None:
    cells = [("Table \u2014 , 2019: 206.2", "206.2")]
    assert check_line_named(read_text("The average is 169.4."), cells) is None


def test_a_word_of_a_cells_footnote_does_not_name_its_line() -> None:
    # The line is what stands between the heading and ": <value>" (ledger.text.tables
    # .cell_labels); the footnote after the value, colon and all, names no line.
    envelope = "Revenue (in millions) \u2014 Service, 2018: 12,621 [1] Restated: see note 2"
    cited = [(envelope, "12,621")]
    assert check_line_named(read_text("The restated revenue in 2018 is 12,621."), cited)
    assert check_line_named(read_text("The service revenue in 2018 is 12,621."), cited) is None


def test_computes_a_claim_about_one_year_from_that_year_and_the_year_before() -> None:
    result, _ = check_computation(
        "The change in sales in 2019 is 121.8 million.", C, list(SALES.values())
    )
    assert (result.outcome, result.reason) == (Outcome.PASS, "recomputed")


def test_never_computes_a_claim_about_one_year_from_a_later_years_figures() -> None:
    # The correct change from 2018 to 2019, claimed of 2018.
    result, _ = check_computation(
        "The change in sales in 2018 is 121.8 million.", C, list(SALES.values())
    )
    assert result.outcome is not Outcome.PASS
    status, _ = _status("The change in sales in 2018 is 121.8 million.", SALES)
    assert status is not Status.VERIFIED


FLEET_TITLE = "Vehicles in service by type (units): fleet of cars and vans"
VANS = {
    "v21": span("v21", "412", f"{FLEET_TITLE} \u2014 Vehicles: Vans, 2021: 412"),
    "v20": span("v20", "380", f"{FLEET_TITLE} \u2014 Vehicles: Vans, 2020: 380"),
}


def test_verifies_a_claim_naming_the_line_below_the_section() -> None:
    status, _ = _status("The change in vans from 2020 to 2021 is 32.", VANS)
    assert status is Status.VERIFIED


def test_a_section_word_does_not_name_one_line_of_the_section() -> None:
    # ``vehicles`` is the section over ``Vans``, ``cars`` is in the title: the claim names
    # another line of the same section.
    status, reasons = _status("The change in cars vehicles from 2020 to 2021 is 32.", VANS)
    assert status is Status.UNVERIFIED
    assert "support_line_unnamed" in reasons
    result = check_line_named(
        read_text("The change in cars vehicles is 32."), [_cited(VANS["v21"])]
    )
    assert result is not None
    assert "'Vehicles: Vans, 2021'" in result.detail


def test_a_section_names_the_sum_of_several_of_its_lines() -> None:
    cells = {
        "v21": VANS["v21"],
        "c21": span("c21", "1,050", f"{FLEET_TITLE} \u2014 Vehicles: Cars, 2021: 1,050"),
    }
    status, _ = _status("The sum of all vehicles in 2021 is 1,462.", cells)
    assert status is Status.VERIFIED


def test_cuts_a_cell_head_into_its_section_and_line() -> None:
    assert section_of("Revenue: Service, 2018") == ("Revenue", "Service, 2018")
    assert section_of("Other current assets, 2019") == ("", "Other current assets, 2019")


def test_asks_for_the_section_when_nothing_below_it_names_a_line() -> None:
    cells = [(f"{FLEET_TITLE} \u2014 Vehicles: (1), 2021: 412", "412")]
    assert check_line_named(read_text("The vehicles in 2021 are 412."), cells) is None
    result = check_line_named(read_text("The cars in 2021 are 412."), cells)
    assert result is not None
    assert result.reason == "support_line_unnamed"
