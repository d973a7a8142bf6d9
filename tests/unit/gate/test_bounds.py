"""Bounds a claim may not drop from its span: on a figure, a year or a multiple (``over 200``,
``around 1850``, ``more than doubled``, ``around 17x``) and on a time (``by Friday``, ``since
2019``, ``at the earliest``).

Each case is a true sentence as the span and an edit of it as the claim that states exactly
what the span bounds; none may verify, and the verbatim quote of each span still does. A bound
dropped is no contradiction (the span does not say the exact figure is false), so the claim is
unverified (``support_qualifier_dropped``); a bound given as a hedge (``at the earliest``) is a
hedge the claim drops, and rejects it.
"""

from __future__ import annotations

import pytest

from ledger.gate import Status
from ledger.gate.alignment.words import words
from ledger.gate.narrowing.qualifiers import dropped_bound
from tests.unit.gate._facts import judged as _judge
from tests.unit.gate._facts import rejection as _rejection
from tests.unit.gate._facts import unverified as _unverified

# -- bounds on figures -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bound",
    ["over", "more than", "at least", "up to", "under", "fewer than", "at most", "below",
     "above", "in excess of", "upwards of", "close to", "around"],
)  # fmt: skip
def test_does_not_verify_a_figure_whose_bound_the_claim_drops(bound: str) -> None:
    reason, detail = _unverified(
        "The firm hired 200 staff in 2023.", f"The firm hired {bound} 200 staff in 2023.", "support"
    )
    assert reason == "support_qualifier_dropped"
    assert "bounds the figure" in detail


def test_does_not_verify_a_year_whose_bound_the_claim_drops() -> None:
    reason, _ = _unverified(
        "He dated the faith to 1850.", "He dated the faith to around 1850.", "support"
    )
    assert reason == "support_qualifier_dropped"


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        ("Revenue was more than $5 million.", "Revenue was over $5 million."),
        ("Revenue was up 5% in 2023.", "Revenue was up 5% in 2023."),
        ("Sales rose 5% in 2023.", "Sales were up 5% in 2023."),
    ],
)
def test_does_not_read_a_kept_bound_or_a_change_as_a_dropped_bound(
    claimed: str, cited: str
) -> None:
    assert not any("bounds the figure" in c.detail for c in _judge(claimed, cited).checks)


def test_reads_a_bound_only_right_before_the_figure() -> None:
    (figure,) = [w for w in words("200") if w.text == "200"]
    assert dropped_bound([], words("hired over"), figure) is not None
    assert dropped_bound([], words("was up"), figure) is None
    assert dropped_bound([], words("over the year hired"), figure) is None
    assert dropped_bound(words("more than"), words("over"), figure) is None


@pytest.mark.parametrize(
    ("bound", "status"),
    [
        ("more than", Status.UNVERIFIED),
        ("over", Status.UNVERIFIED),
        # A hedge that negates: ``nearly doubled`` says that they did not double.
        ("nearly", Status.REJECTED),
        ("almost", Status.REJECTED),
    ],
)
def test_does_not_verify_a_multiple_whose_bound_the_claim_drops(bound: str, status: Status) -> None:
    verdict = _judge("Costs doubled over the period.", f"Costs {bound} doubled over the period.")
    assert verdict.status is status
    span = f"Costs {bound} doubled over the period."
    assert _judge(span, span).status is Status.VERIFIED


@pytest.mark.parametrize("multiple", ["17x", "17X", "17\u00d7", "1.5x"])
def test_does_not_verify_a_multiple_written_with_x_whose_bound_the_claim_drops(
    multiple: str,
) -> None:
    span = f"The new parser is around {multiple} faster than the old one."
    verdict = _judge(f"The new parser is {multiple} faster than the old one.", span)
    assert verdict.status is Status.UNVERIFIED
    assert _judge(span, span).status is Status.VERIFIED


# -- bounds on times: deadlines, since, at the earliest ------------------------------------


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        ("Delivery will be on Friday.", "Delivery will be by Friday."),
        ("Payment is due on March 31, 2024.", "Payment is due by March 31, 2024."),
        ("The results come out at the end of June.", "The results come out by the end of June."),
        ("The results come out in June.", "The results come out by the end of June."),
        ("The plant will be closed in 2026.", "The plant will be closed by 2026."),
        ("The migration finishes in Q3 2024.", "The migration finishes by Q3 2024."),
        ("Margins improved in 2019.", "Margins have improved since 2019."),
        ("The office was closed on Monday.", "The office has been closed since Monday."),
        ("The rule covers loans signed in 2020.", "The rule covers loans signed after 2020."),
        ("The rule covers loans signed in 2020.", "The rule covers loans signed before 2020."),
    ],
)
def test_does_not_verify_a_time_where_the_span_bounds_it(claimed: str, cited: str) -> None:
    reason, detail = _unverified(claimed, cited, "support")
    assert reason == "support_qualifier_dropped"
    assert "bounds the time" in detail
    assert _judge(cited, cited).status is Status.VERIFIED


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        ("The deal closed by Friday.", "The deal closed on Friday."),
        ("Margins have improved since 2019.", "Margins have improved since 2019."),
        ("Sales rose after tax in 2019.", "Sales rose after tax in 2019."),
        ("The company was founded by June Carter.", "The company was founded by June Carter."),
        ("Revenue rose 5% in 2023.", "Revenue rose by 5% in 2023."),
        ("The plan was approved in March.", "The plan was approved by the board in March."),
    ],
)
def test_verifies_a_deadline_kept_or_a_by_that_is_no_deadline(claimed: str, cited: str) -> None:
    assert _judge(claimed, cited).status is Status.VERIFIED


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        (
            "The project will be completed in 2025.",
            "The project will be completed in 2025 at the earliest.",
        ),
        ("The plant opens in 2026.", "The plant opens in 2026 at the latest."),
    ],
)
def test_rejects_a_date_the_span_gives_at_the_earliest_or_latest(claimed: str, cited: str) -> None:
    reason, _ = _rejection(claimed, cited, "polarity")
    assert reason == "hedge_mismatch"
    assert _judge(cited, cited).status is Status.VERIFIED


@pytest.mark.parametrize(
    "text", ["The latest results show growth.", "The earliest known copy dates from 1450."]
)
def test_reads_earliest_and_latest_elsewhere_as_plain_words(text: str) -> None:
    assert _judge(text, text).status is Status.VERIFIED
    assert _judge("Results show growth.", "The latest results show growth.").status is (
        Status.VERIFIED
    )


@pytest.mark.parametrize(
    "cited",
    [
        "Revenue rose as much as 5% in 2023.",
        "Revenue rose by as little as 5% in 2023.",
        "The firm hired as many as 200 staff in 2023.",
        "Revenue rose 5% or more in 2023.",
        "Revenue rose 5% or less in 2023.",
        "Revenue rose 5 percent at most in 2023.",
        "Revenue rose $5 million or more in 2023.",
        "Revenue rose 5% at the least in 2023.",
    ],
)
def test_does_not_verify_a_figure_whose_bound_before_or_after_it_the_claim_drops(
    cited: str,
) -> None:
    claimed = (
        "The firm hired 200 staff in 2023."
        if "staff" in cited
        else "Revenue rose $5 million in 2023."
        if "$5" in cited
        else "Revenue rose 5% in 2023."
    )
    reason, detail = _unverified(claimed, cited, "support")
    assert reason == "support_qualifier_dropped"
    assert "bounds the figure" in detail
    assert _judge(cited, cited).status is Status.VERIFIED


@pytest.mark.parametrize(
    ("claimed", "cited"),
    [
        ("Revenue rose 5% or more in 2023.", "Revenue rose 5% or more in 2023."),
        ("Revenue rose at least 5% in 2023.", "Revenue rose 5% or more in 2023."),
        ("Revenue rose 5% in 2023.", "Revenue rose 5% or so in 2023, or more in Asia."),
        ("Revenue rose 5%.", "Revenue rose 5%, or more than analysts expected."),
    ],
)
def test_keeps_a_bound_the_claim_keeps_or_one_that_bounds_no_figure(
    claimed: str, cited: str
) -> None:
    assert not any("bounds the figure" in c.detail for c in _judge(claimed, cited).checks), _judge(
        claimed, cited
    ).checks
