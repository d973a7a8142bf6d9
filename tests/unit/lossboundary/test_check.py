"""The loss-boundary check on evidence written for it: faithful compressions pass, and each
way of losing a must-keep item is refused, naming the item and its span."""

from __future__ import annotations

import pytest

from ledger.lossboundary import InputText, MayRemove, MustKeep, check_loss
from tests.unit.lossboundary.texts import (
    CONTRACT,
    CONTRACT_SUMMARY,
    LEAFLET,
    LEAFLET_SUMMARY,
    POLICY,
    POLICY_SUMMARY,
    POLICY_SUMMARY_WITHOUT_THE_EXCLUSION,
)

ALL = list(MustKeep)
EXAMPLES_AND_PROCEDURE = [MayRemove.EXAMPLES, MayRemove.PROCEDURE, MayRemove.REPETITION]


def dropped(inputs: list[InputText], output: str, may_remove: list[MayRemove]) -> list[dict]:  # type: ignore[type-arg]
    return [item.to_json() for item in check_loss(inputs, output, ALL, may_remove).dropped]


def test_the_seed_policy_summary_that_drops_the_dispute_exclusion_is_refused() -> None:
    assert dropped(POLICY, POLICY_SUMMARY_WITHOUT_THE_EXCLUSION, EXAMPLES_AND_PROCEDURE) == [
        {
            "must_keep": "exceptions",
            "cue": "exception",
            "item": "Customers under an active dispute are excluded",
            "span_id": "sp_policy_dispute",
        }
    ]


def test_the_seed_policy_summary_that_keeps_the_exclusion_passes_and_releases_the_example() -> None:
    report = check_loss(POLICY, POLICY_SUMMARY, ALL, EXAMPLES_AND_PROCEDURE)

    assert report.kept
    assert [item.to_json() for item in report.released] == [
        {
            "must_keep": "numbers",
            "cue": "figure",
            "item": "$40",
            "span_id": "sp_policy_example",
            "released_by": "examples",
        }
    ]
    assert report.record()["items"]["exceptions"] == {"found": 1, "released": 0, "kept": 1}


def test_an_example_is_not_released_unless_the_boundary_may_remove_examples() -> None:
    assert dropped(POLICY, POLICY_SUMMARY, [MayRemove.PROCEDURE]) == [
        {"must_keep": "numbers", "cue": "figure", "item": "$40", "span_id": "sp_policy_example"}
    ]


def test_a_faithful_contract_summary_passes() -> None:
    report = check_loss(CONTRACT, CONTRACT_SUMMARY, ALL, EXAMPLES_AND_PROCEDURE)

    assert report.kept, [item.to_json() for item in report.dropped]
    assert {item.span_id for item in report.released} == {"sp_contract_example"}


MAINTENANCE = (
    "Credits do not apply to downtime caused by scheduled maintenance announced at least 48 "
    "hours in advance"
)


@pytest.mark.parametrize(
    ("change", "summary", "items"),
    [
        (
            "a threshold's bound dropped (the clause that denies loses a word too)",
            CONTRACT_SUMMARY.replace("at least 48 hours", "48 hours"),
            [
                ("numbers", "at least 48 hours", "sp_contract_maintenance"),
                ("negations", MAINTENANCE, "sp_contract_maintenance"),
            ],
        ),
        (
            "a notice period rewritten in other units (its clause loses a word too)",
            CONTRACT_SUMMARY.replace("90 days'", "3 months'"),
            [
                ("numbers", "90 days", "sp_contract_termination"),
                (
                    "uncertainty",
                    "Either party may terminate this Agreement on 90 days' written notice",
                    "sp_contract_termination",
                ),
            ],
        ),
        (
            "the condition of a right dropped",
            CONTRACT_SUMMARY.replace(", provided that no invoice is overdue", ""),
            [
                ("exceptions", "provided that no invoice is overdue", "sp_contract_termination"),
                ("negations", "provided that no invoice is overdue", "sp_contract_termination"),
            ],
        ),
        (
            "a negation dropped",
            CONTRACT_SUMMARY.replace("do not apply", "apply"),
            [("negations", MAINTENANCE, "sp_contract_maintenance")],
        ),
        (
            "a cap rounded",
            CONTRACT_SUMMARY.replace("capped at 30%", "capped at about a third"),
            [("numbers", "30%", "sp_contract_cap")],
        ),
    ],
)
def test_a_contract_summary_that_loses_a_must_keep_item_is_refused_naming_it(
    change: str, summary: str, items: list[tuple[str, str, str]]
) -> None:
    found = dropped(CONTRACT, summary, EXAMPLES_AND_PROCEDURE)

    assert [(d["must_keep"], d["item"], d["span_id"]) for d in found] == items, change


def test_a_faithful_leaflet_summary_passes() -> None:
    report = check_loss(LEAFLET, LEAFLET_SUMMARY, ALL, EXAMPLES_AND_PROCEDURE)

    assert report.kept, [item.to_json() for item in report.dropped]
    assert report.record()["items"]["uncertainty"]["kept"] == 2  # "may take", "uncertain"


@pytest.mark.parametrize(
    ("change", "summary", "kind", "span_id"),
    [
        (
            "the uncertainty of the evidence dropped",
            LEAFLET_SUMMARY.replace("is uncertain", "is established"),
            "uncertainty",
            "sp_leaflet_evidence",
        ),
        (
            "the minority view dropped",
            LEAFLET_SUMMARY.replace(
                " A minority of the panel argued that the 2 g limit is too cautious.", ""
            ),
            "minority_views",
            "sp_leaflet_panel",
        ),
        (
            "a maximum dose's bound turned around",
            LEAFLET_SUMMARY.replace("not take more than 2 g", "not take less than 2 g"),
            "numbers",
            "sp_leaflet_liver",
        ),
        (
            "the negation of a limit dropped",
            LEAFLET_SUMMARY.replace("should not take more than 2 g", "should take more than 2 g"),
            "negations",
            "sp_leaflet_liver",
        ),
        (
            "an exception turned into a condition",
            LEAFLET_SUMMARY.replace("unless a physician", "if a physician"),
            "exceptions",
            "sp_leaflet_liver",
        ),
    ],
)
def test_a_leaflet_summary_that_loses_a_must_keep_item_is_refused(
    change: str, summary: str, kind: str, span_id: str
) -> None:
    found = dropped(LEAFLET, summary, EXAMPLES_AND_PROCEDURE)

    assert (kind, span_id) in [(d["must_keep"], d["span_id"]) for d in found], (change, found)


def test_an_exclusion_kept_as_a_negation_is_kept() -> None:
    inputs = [InputText("sp_1", "Customers under an active dispute are excluded.")]
    output = "Customers under an active dispute are not eligible."

    assert check_loss(inputs, output, ALL).kept


def test_a_must_keep_item_the_boundary_does_not_name_is_not_looked_for() -> None:
    inputs = [InputText("sp_1", "Customers under an active dispute are excluded.")]

    assert check_loss(inputs, "Customers get the waiver.", [MustKeep.NUMBERS]).kept
    assert not check_loss(inputs, "Customers get the waiver.", [MustKeep.EXCEPTIONS]).kept


def test_an_item_said_twice_in_the_inputs_survives_when_the_output_says_it_once() -> None:
    said = "Refunds are issued within 30 days of the charge."
    inputs = [InputText("sp_1", said), InputText("sp_2", said)]

    assert check_loss(inputs, said, ALL).kept


def test_a_low_weight_source_is_released_only_when_the_boundary_may_remove_low_weight_sources() -> (
    None
):
    inputs = [
        InputText("sp_policy", "Refunds are issued within 30 days."),
        InputText("sp_forum", "Some users report refunds after 45 days.", low_weight=True),
    ]
    output = "Refunds are issued within 30 days."

    assert check_loss(inputs, output, ALL, [MayRemove.LOW_WEIGHT_SOURCES]).kept
    refused = check_loss(inputs, output, ALL, [MayRemove.EXAMPLES])
    assert [item.text for item in refused.dropped] == ["after 45 days"]


def test_the_month_may_is_a_date_not_a_hedge() -> None:
    inputs = [InputText("sp_1", "The waiver ends on 31 May 2025.")]

    report = check_loss(inputs, "The waiver ends on 31 May 2025.", ALL)

    assert [item.kind for item in report.items] == [MustKeep.DATES]
    assert report.kept


def test_a_date_written_less_precisely_is_dropped() -> None:
    inputs = [InputText("sp_1", "The waiver ends on 31 May 2025.")]

    report = check_loss(inputs, "The waiver ends in May 2025.", ALL)

    assert [item.text for item in report.dropped] == ["31 May 2025"]


def test_the_check_is_deterministic() -> None:
    first = check_loss(CONTRACT, CONTRACT_SUMMARY, ALL, EXAMPLES_AND_PROCEDURE).record()
    again = check_loss(CONTRACT, CONTRACT_SUMMARY, ALL, EXAMPLES_AND_PROCEDURE).record()

    assert first == again


def test_an_exception_written_as_a_negated_condition_is_kept() -> None:
    inputs = [InputText("sp_1", "Refunds are issued within 30 days unless the order was opened.")]

    kept = check_loss(inputs, "Refunds are issued within 30 days if the order was not opened.", ALL)
    lost = check_loss(inputs, "Refunds are issued within 30 days if the order was opened.", ALL)

    assert kept.kept
    assert [item.cue for item in lost.dropped] == ["exception"]


def test_a_number_that_names_a_thing_is_no_figure() -> None:
    inputs = [InputText("sp_1", "Notices go to the addresses in Schedule 2.")]

    assert check_loss(inputs, "", [MustKeep.NUMBERS]).items == ()


def test_a_clause_that_loses_one_negation_of_two_is_refused() -> None:
    inputs = [
        InputText(
            "sp_1", "Pat warns not to make it a habit and not to email IT if the site is down."
        )
    ]

    report = check_loss(
        inputs, "Pat warns to make it a habit and not to email IT if the site is down.", ALL
    )

    assert [item.cue for item in report.dropped] == ["negation"]
