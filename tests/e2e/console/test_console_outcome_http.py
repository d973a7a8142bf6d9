"""A receipt's outcome, reviewer and downstream actions on its console page (both backends):
the latest decision, the earlier one it amended, every action in the order first recorded,
the call to act on them once the receipt expired, and hostile text kept inert."""

from __future__ import annotations

import re

from markupsafe import escape

from tests.e2e.console.conftest import HTML, Reader
from tests.e2e.console.seed import AMENDED_OUTCOME, FIRST_OUTCOME, XSS_ATTRIBUTE, XSS_SCRIPT
from tests.e2e.flows import open_receipt


def _section(page: str) -> str:
    found = re.search(r'<section aria-labelledby="outcome-h">(.*?)</section>', page, re.S)
    assert found is not None, page
    return found.group(1)


def test_a_receipt_page_shows_the_latest_decision_its_reviewer_and_every_action(
    reader: Reader,
) -> None:
    page = reader.client.get(f"/console/receipts/{reader.seeded.receipt_id}", headers=HTML).text
    section = _section(page)

    assert f'<dd class="untrusted decision">{AMENDED_OUTCOME["decision"]}</dd>' in section
    assert '<dd class="reviewer">reviewer-4</dd>' in section
    assert "by key:seeder" in section
    earlier = re.search(r'<details class="earlier-outcomes">(.*?)</details>', section, re.S)
    assert earlier is not None
    assert "1 earlier decision, amended since" in earlier.group(1)
    assert FIRST_OUTCOME["decision"] in earlier.group(1)
    assert "reviewed by reviewer-12" in earlier.group(1)
    actions = re.findall(r'data-label="Action"><code>([^<]+)</code>', section)
    assert actions == ["rma-5521", "mail-77", "refund-903"]
    assert '<td role="cell" data-label="Target" class="untrusted">card ending 4242</td>' in section
    # the seeded receipt expired (its cited version was superseded): act on each action
    assert "replay, remedy or document the non-impact of each action" in section


def test_a_receipt_without_an_outcome_says_so(reader: Reader) -> None:
    receipt_id = open_receipt(
        reader.client, reader.admin, [], request="no outcome yet", policy_version=None
    )

    page = reader.client.get(f"/console/receipts/{receipt_id}", headers=HTML).text

    assert "<p>No outcome was recorded.</p>" in _section(page)


def test_a_hostile_outcome_is_shown_as_text(reader: Reader) -> None:
    page = reader.client.get(
        f"/console/receipts/{reader.seeded.hostile_receipt_id}", headers=HTML
    ).text
    section = _section(page)

    assert XSS_SCRIPT not in section
    assert "<img" not in section
    assert f"Decided {escape(XSS_SCRIPT)}" in section
    assert f'<dd class="reviewer">{escape(XSS_ATTRIBUTE)}</dd>' in section
