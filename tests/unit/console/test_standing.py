"""A committed claim's standing today: expired, superseded, withdrawn and repaired, dated."""

from __future__ import annotations

from typing import Any

from api.console.standing import claim_standing
from projections.citation_queries import CitedVersion

OPEN = {"status": {"status": "open", "reason": None, "at": None}, "expires_at": None}
CLAIM = {"bindings": [{"span_id": "sp_1", "source_id": "policy", "version": 1}]}


def _version(**changes: Any) -> dict[tuple[str, int], CitedVersion]:
    fields: dict[str, Any] = {
        "source_id": "policy",
        "version": 1,
        "title": "Returns policy",
        "effective_from": "2026-01-01T00:00:00.000000Z",
        "effective_to": None,
        "superseded_at": None,
        "withdrawn_at": None,
        "withdraw_reason": None,
        **changes,
    }
    return {("policy", 1): CitedVersion(**fields)}


def _texts(standing: Any) -> list[str]:
    return [str(f.text) for f in standing.facts]


def test_a_claim_over_a_current_version_of_an_open_receipt_stands() -> None:
    standing = claim_standing(OPEN, CLAIM, _version())
    assert standing.stands
    assert standing.facts == ()
    assert standing.summary == "stands"


def test_an_expired_receipt_and_a_superseded_version_are_dated_and_the_claim_no_longer_stands() -> (
    None
):
    expired = {
        "status": {
            "status": "expired",
            "reason": "source_superseded",
            "at": "2026-03-01T09:00:00Z",
        },
        "expires_at": None,
    }
    cited = _version(
        superseded_at="2026-03-01T08:59:59.000000Z", effective_to="2026-03-01T00:00:00.000000Z"
    )
    standing = claim_standing(expired, CLAIM, cited)
    assert not standing.stands
    assert standing.summary == "expired"
    expiry, superseded = _texts(standing)
    assert expiry.startswith('The receipt expired on <time datetime="2026-03-01T09:00:00Z"')
    assert "a newer version of a cited source replaced the cited one." in expiry
    assert '<code class="code">source_superseded</code>' in expiry
    assert superseded.startswith("Returns policy version 1 was superseded on <time")
    assert "2026-03-01 08:59:59 UTC</time>, in force until" in superseded
    assert superseded.endswith(">2026-03-01</time>.")


def test_a_withdrawn_source_is_named_with_its_date_and_reason_escaped() -> None:
    cited = _version(withdrawn_at="2026-04-02T10:00:00.000000Z", withdraw_reason="<b>retracted</b>")
    standing = claim_standing(OPEN, CLAIM, cited)
    assert standing.summary == "withdrawn"
    (withdrawn,) = _texts(standing)
    assert withdrawn.startswith("Returns policy was withdrawn on <time")
    assert withdrawn.endswith(": &lt;b&gt;retracted&lt;/b&gt;.")


def test_repairs_are_dated_and_a_repaired_claim_still_stands() -> None:
    claim = {
        **CLAIM,
        "repairs": [
            {
                "outcome": "repaired",
                "binding_index": 0,
                "previous_binding": {"span_id": "sp_old"},
                "new_binding": {"span_id": "sp_1"},
            },
            {"outcome": "failed", "binding_index": 0, "new_binding": None},
        ],
    }
    at = ["2026-05-01T12:00:00.000000Z", "2026-05-02T12:00:00.000000Z"]
    standing = claim_standing(OPEN, claim, _version(), at)
    assert standing.stands
    repaired, failed = _texts(standing)
    assert "Citation [1] was repaired on" in repaired
    assert "2026-05-01 12:00:00 UTC" in repaired
    assert "moved from span sp_old to span sp_1" in repaired
    assert failed.startswith('On <time datetime="2026-05-02T12:00:00.000000Z"')


def test_an_expiry_time_still_to_come_is_said_without_ending_the_claim() -> None:
    receipt = {**OPEN, "expires_at": "2027-01-01T00:00:00.000000Z"}
    standing = claim_standing(receipt, CLAIM, _version())
    assert standing.stands
    assert _texts(standing) == [
        'The receipt expires on <time datetime="2027-01-01T00:00:00.000000Z" '
        'title="2027-01-01T00:00:00.000000Z">2027-01-01</time>.'
    ]
