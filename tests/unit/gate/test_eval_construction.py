"""How the evaluation turns TAT-QA tables and derivations into cited claims."""

from __future__ import annotations

from benchmarks.eval_cases import HALVES, half_of, span
from benchmarks.tatqa_cases import (
    _operand_values,
    bind_operands,
    line_swap,
    period_swap,
    question_claim,
)
from benchmarks.tatqa_ceiling import read_as
from benchmarks.tatqa_tables import _table_spans, caption
from tests.unit.gate._facts import STACKED_TABLE


def test_spreads_a_single_header_over_every_value_column() -> None:
    cells = _table_spans(
        [
            ["", "", "Years Ended December 31,", ""],
            ["", "2019", "2 0 1 8", "2017"],
            ["Sales", "10", "20", "30"],
        ]
    )
    assert [c.envelope for c in cells] == [
        "Table \u2014 Sales, Years Ended December 31, 2019: 10",
        "Table \u2014 Sales, Years Ended December 31, 2018: 20",
        "Table \u2014 Sales, Years Ended December 31, 2017: 30",
    ]


def test_prefixes_rows_with_the_section_label_above_them() -> None:
    cells = _table_spans(
        [["($ in millions)", "2019"], ["Cost", "$1"], ["Revenue:", ""], ["Product", "$5"]]
    )
    assert [c.envelope for c in cells][1] == "($ in millions) \u2014 Revenue: Product, 2019: $5"


def test_heads_a_stacked_second_period_with_its_own_header_block() -> None:
    cells = _table_spans(STACKED_TABLE)
    assert [c.envelope for c in cells] == [
        "Table \u2014 Total, As of December 31, 2019 Cost: $229",
        "Table \u2014 Total, As of December 31, 2019 Value: $223",
        "Table \u2014 Total, As of December 31, 2018 Cost: $171",
        "Table \u2014 Total, As of December 31, 2018 Value: $179",
    ]


def test_reads_a_wrapped_date_or_a_misplaced_section_label_as_no_header_block() -> None:
    cells = _table_spans(
        [
            ["", "2019", "2018"],
            ["Notional", "29,423", "77,630"],
            ["Maturity date", "30/7/2021~", "28/6/2019~"],
            ["", "11/4/2024", "8/12/2023"],
            ["Rate", "2.10%", "1.60%"],
            ["", "Expenses:", ""],
            ["Cost", "$5", "$6"],
        ]
    )
    assert cells[-1].envelope == "Table \u2014 Cost, 2018: $6"
    assert cells[-4].envelope == "Table \u2014 Rate, 2018: 1.60%"


def test_drops_the_divisor_of_an_average_and_the_hundred_of_a_percentage() -> None:
    assert _operand_values("(53,294 + 61,431) / 2") == [53294.0, 61431.0]
    assert _operand_values("(5,015-5,256)/5,256 * 100") == [5015.0, 5256.0]


def test_drops_the_one_of_a_ratio_minus_one_and_cites_the_base_of_a_change_once() -> None:
    assert _operand_values("22,224 / 30,890 - 1") == [22224.0, 30890.0]
    assert _operand_values("(428.6-901.3)/901.3") == [428.6, 901.3]
    assert _operand_values("2.5 - 2.5") == [2.5, 2.5]
    assert _operand_values("4.3 - 1") == [4.3, 1.0]


def test_binds_two_cells_for_one_value_written_twice() -> None:
    cells = _table_spans([["", "2019", "2018"], ["Salary increase", "2.5", "2.5"]])
    bound = bind_operands("What is the change in salary increase?", [2.5, 2.5], cells, [])
    assert bound is not None
    assert len(bound) == 2


def test_binds_the_cell_whose_row_the_question_names() -> None:
    cells = _table_spans([["", "2019"], ["Goodwill", "7"], ["Other", "7"]])
    bound = bind_operands("What is the ratio of goodwill?", [7.0], cells, [])
    assert bound is not None
    assert [s.envelope for s in bound.values()] == ["Table \u2014 Goodwill, 2019: 7"]


def test_takes_the_sentence_introducing_the_table_as_its_title() -> None:
    table = [["", "2019"], ["Total assets", "$2,664"]]
    sentences = [
        "IMFT is a joint venture between us and Intel.",
        "The following table presents the assets and liabilities of IMFT:",
        "Amounts exclude intercompany balances.",
    ]
    title = caption(table, sentences)
    assert title == sentences[1]
    cells = _table_spans(table, title)
    assert [c.envelope for c in cells] == [f"{title} \u2014 Total assets, 2019: $2,664"]


def test_gives_no_title_when_no_sentence_introduces_a_table() -> None:
    assert caption([["", "2019"], ["Sales", "1"]], ["Sales grew in 2019."]) is None


def test_reads_a_row_of_none_as_values_not_as_a_header() -> None:
    cells = _table_spans(
        [["", "2020", "2019"], ["Dividend yield", "None", "None"], ["Volatility", "27.4%", "33.5%"]]
    )
    assert cells[-1].envelope == "Table \u2014 Volatility, 2019: 33.5%"


def test_ends_the_header_at_a_section_row_and_does_not_read_31_comma_as_a_figure() -> None:
    cells = _table_spans(
        [
            ["", "", "Years Ended December 31,", "31,"],
            ["", "2019", "2018", "2017"],
            ["Current provision:", "", "", ""],
            ["State", "$49", "$44", "$48"],
        ]
    )
    assert cells[1].envelope == (
        "Table \u2014 Current provision: State, Years Ended December 31, 2018: $44"
    )


def test_binds_the_cell_of_the_year_the_question_names() -> None:
    cells = _table_spans([["", "Finance leases"], ["2021", "$6"], ["2022", "6"], ["2023", "7"]])
    question = "What is the change in finance leases between 2022 and 2023?"
    bound = bind_operands(question, [7.0, 6.0], cells, [])
    assert bound is not None
    assert [s.envelope for s in bound.values()] == [
        "Table \u2014 2023, Finance leases: 7",
        "Table \u2014 2022, Finance leases: 6",
    ]


def test_without_a_year_in_the_question_binds_the_first_cell_holding_the_figure() -> None:
    cells = _table_spans([["", "Finance leases"], ["2021", "$6"], ["2022", "6"]])
    bound = bind_operands("What is the ratio of finance leases?", [6.0], cells, [])
    assert bound is not None
    assert [s.envelope for s in bound.values()] == ["Table \u2014 2021, Finance leases: $6"]


def test_writes_a_question_form_claim_as_the_question_and_its_answer() -> None:
    question = "What was the average operating expense in 2018 and 2019?"
    assert question_claim(question, "212.5 million") == (
        "What was the average operating expense in 2018 and 2019: 212.5 million."
    )


def test_puts_every_case_of_one_table_in_the_half_of_its_uid() -> None:
    assert half_of("a-table-uid") in HALVES
    assert half_of("a-table-uid") == half_of("a-table-uid")
    assert {half_of(f"uid-{n}") for n in range(20)} == set(HALVES)


TABLE = [
    ["", "2019", "2018"],
    ["Software license", "$275,792", "$282,950"],
    ["Maintenance", "254,924", "239,310"],
    ["Software license and maintenance", "530,716", "522,260"],
    ["Cloud", "67,918", "45,218"],
]


def test_swaps_a_cited_row_label_for_the_nearest_other_line_sharing_no_word() -> None:
    bound = {s.span_id: s for s in _table_spans(TABLE) if s.span_id in ("t2.1", "t2.2")}
    question = "What is the average Maintenance in 2018 and 2019?"
    # "Software license and maintenance" shares a word with the cited line (and may still
    # name it); "Software license", one row up, is the nearest line that does not.
    assert (
        line_swap(question, TABLE, bound)
        == "What is the average Software license in 2018 and 2019?"
    )


def test_builds_no_line_swap_when_the_question_does_not_write_a_cited_label() -> None:
    bound = {s.span_id: s for s in _table_spans(TABLE) if s.span_id in ("t2.1", "t2.2")}
    assert line_swap("What is the average support revenue?", TABLE, bound) is None


def test_moves_every_year_of_a_question_one_year_earlier() -> None:
    assert period_swap("What is the change from 2018 to 2019 in $1,2019 of sales?") == (
        "What is the change from 2017 to 2018 in $1,2019 of sales?"
    )
    assert period_swap("What is the average Maintenance?") is None


def test_ceiling_rewrites_a_bracketed_value_by_each_convention_and_keeps_footnote_marks() -> None:
    cell = span("t1", "$(1,647)", "Table \u2014 Net additions (1), August 31, 2018 (1): $(1,647)")
    accounting = read_as(cell, "accounting")
    magnitude = read_as(cell, "magnitude")
    assert (accounting.text, accounting.envelope) == (
        "$-1,647",
        "Table \u2014 Net additions (1), August 31, 2018 (1): $-1,647",
    )
    assert (magnitude.text, magnitude.envelope) == (
        "$1,647",
        "Table \u2014 Net additions (1), August 31, 2018 (1): $1,647",
    )
