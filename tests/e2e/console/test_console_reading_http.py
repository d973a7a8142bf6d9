"""The console for the people who read it, over HTTP (both backends): the receipt list's
request and counts, claims in commit order with refused ones apart, a citation followed to
its marked sentence, known-at against valid-at, and errors inside the console's frame."""

from __future__ import annotations

import html
import re

from sqlalchemy import update

from projections.schema import receipts
from tests.e2e.console.conftest import HTML, Reader
from tests.e2e.console.seed import Mixed, seed_mixed


def _mixed(reader: Reader) -> tuple[Mixed, str]:
    mixed = seed_mixed(reader.client, reader.admin)
    page = reader.client.get(f"/console/receipts/{mixed.receipt_id}", headers=HTML)
    assert page.status_code == 200, page.text
    return mixed, page.text


def _articles(section: str) -> list[str]:
    return re.findall(r'<article class="claim.*?</article>', section, re.S)


def test_the_receipt_list_shows_the_question_asked_and_committed_and_refused_counts(
    reader: Reader,
) -> None:
    mixed, _ = _mixed(reader)
    page = reader.client.get("/console/receipts", headers=HTML).text
    row = re.search(
        rf"<tr role=\"row\">\s*<td[^>]*><a href=\"/console/receipts/{mixed.receipt_id}\".*?</tr>",
        page,
        re.S,
    )
    assert row is not None
    cells = re.findall(r'data-label="([^"]+)"[^>]*>(.*?)</td>', row.group(0), re.S)
    shown = {
        label: " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())
        for label, text in cells
    }
    assert shown["Request"] == (
        "How did the segments do in 2023, and what is the returns policy now? " + mixed.receipt_id
    )
    assert shown["Actor"] == "auditor-demo"
    assert shown["Purpose"] == "quarterly-review"
    assert shown["Claims"] == "5 committed, 2 refused"
    assert shown["Status"] == "open"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", shown["Opened"])


def test_a_receipt_listed_from_a_read_model_built_before_requests_shows_its_id(
    reader: Reader,
) -> None:
    engine = reader.client.app.state.services.read_side.db.sync  # type: ignore[attr-defined]
    with engine.begin() as conn:
        conn.execute(update(receipts).values(request=None))
    page = reader.client.get("/console/receipts", headers=HTML).text
    assert f">Receipt {reader.seeded.receipt_id}</a>" in page


def test_committed_claims_are_in_commit_order_and_refused_ones_in_a_collapsed_section(
    reader: Reader,
) -> None:
    mixed, page = _mixed(reader)
    committed, refused = page.split('<section aria-labelledby="refused-h">')
    numbers = re.findall(r'<span class="claim-n">Claim (\d+)\.</span>', committed)
    assert tuple(int(n) for n in numbers) == mixed.committed_order
    assert '<details class="refused">' in refused  # closed until the reader opens it
    numbers = re.findall(r'<span class="claim-n">Claim (\d+)\.</span>', refused)
    assert tuple(int(n) for n in numbers) == mixed.refused
    batch, rejected = _articles(refused)
    assert (
        '<strong class="refused-label">not committed: another claim of the same request '
        "failed</strong>"
    ) in batch
    assert "badge-verified" not in refused  # a verdict never committed carries no badge
    assert '<strong class="refused-label">rejected: a hard check failed' in rejected
    assert "Verify claim" not in refused
    for n in mixed.committed_order:
        assert committed.count(f">Verify claim {n}</button>") == 1
        assert committed.count(f">Download claim {n}'s audit bundle</a>") == 1
    repaired = _articles(committed)[3]  # claim 4, in its place
    assert "<dt>When it was committed: by a repair, on <time" in repaired
    assert "Citation [1] was repaired on <time" in repaired


def test_the_offline_command_names_each_committed_claim(reader: Reader) -> None:
    mixed, page = _mixed(reader)
    command = page.split('<section aria-labelledby="offline-h">')[1]
    assert "CLAIM_ID" not in command
    listed = re.search(r"for claim in ([^;]+); do", command)
    assert listed is not None
    committed = [mixed.claim_ids[n - 1] for n in mixed.committed_order]
    assert listed.group(1).split() == committed
    assert "/v1/claims/$claim/bundle &gt; $claim.bundle.json" in command


def test_a_followed_citation_opens_the_source_at_the_marked_sentence_with_its_neighbours(
    reader: Reader,
) -> None:
    page = reader.client.get(f"/console/receipts/{reader.seeded.receipt_id}", headers=HTML).text
    span = reader.seeded.window_span_id
    link = f"/console/sources/returns-policy?span={span}&amp;version=1#cited"
    assert f'<a class="follow" href="{link}">' in page
    source = reader.client.get(html.unescape(link), headers=HTML).text
    cited = source.split('<section id="cited"')[1].split("</section>")[0]
    assert "The cited words, in version 1" in cited
    assert (
        '<mark class="cited-span">Damaged goods are returned within 30 days of delivery.</mark>'
    ) in cited
    assert '<span class="context"> Items returned after 30 days' in cited  # its neighbour
    assert "Version 1 is superseded" in cited
    frozen = source.split('<details class="frozen" id="frozen">')[1]
    assert "<summary>Frozen text of version 1</summary>" in frozen
    assert frozen.count('<mark class="cited-span">') == 1


def test_a_span_the_version_does_not_hold_is_said_on_the_page(reader: Reader) -> None:
    response = reader.client.get(
        "/console/sources/returns-policy",
        params={"span": "sp_000000000000000000000000", "version": 2},
        headers=HTML,
    )
    assert response.status_code == 200
    assert "Version 2 of this source has no span <code>sp_000000000000000000000000</code>" in (
        response.text
    )


def test_a_source_asked_for_before_the_ledger_recorded_it_says_when_it_did(
    reader: Reader,
) -> None:
    response = reader.client.get(
        "/console/sources/returns-policy", params={"known_at": "2000-01-01"}, headers=HTML
    )
    assert response.status_code == 200
    registered = reader.client.get("/v1/sources/returns-policy", headers=reader.admin).json()[
        "registered_at"
    ]
    assert "the ledger had no record of this source yet: it first recorded it on" in response.text
    assert f'<time datetime="{registered}"' in response.text
    assert "<b>Known at</b>: when the ledger learned of it" in response.text
    assert "<b>Valid at</b>: when it was in force" in response.text


def test_the_replay_says_what_was_valid_then_but_recorded_later(reader: Reader) -> None:
    client, admin = reader.client, reader.admin
    response = client.post(
        "/v1/sources",
        headers=admin,
        json={
            "source_id": "old-rule",
            "title": "Old rule",
            "authority": "source_of_record",
            "text": "The rule applies from January.",
            "effective_from": "2026-01-01T00:00:00Z",
        },
    )
    assert response.status_code == 201, response.text
    page = client.get("/console/replay", params={"at": "2026-03-01"}, headers=HTML).text
    assert "As the ledger knew it at the end of 2026-03-01 (UTC)" in page
    assert "The ledger's first record is from" in page
    assert "source was in force on this date but recorded only later" in page
    assert "<b>Known at</b>: when the ledger learned of it" in page
    assert "No source was registered yet." in page
    later = client.get("/console/replay", params={"at": "2099-01-01"}, headers=HTML).text
    assert "/console/sources/old-rule?" in later
    assert "recorded only later" not in later


def test_a_refused_sign_in_shows_the_form_again_with_the_error_on_its_field(
    reader: Reader,
) -> None:
    client = reader.client
    client.cookies.clear()
    form = client.get("/console/", headers=HTML).text
    token = re.search(r'name="csrf" value="([^"]+)"', form)
    assert token is not None
    response = client.post(
        "/console/session",
        data={"csrf": token.group(1), "api_key": "pl_nobody.secret"},
        headers=HTML,
    )
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.headers["content-type"].startswith("text/html")
    assert (
        '<p class="problem field-error" id="api_key-error" role="alert">Sign-in failed: '
        "unknown or revoked API key.</p>"
    ) in response.text
    assert 'aria-invalid="true" aria-describedby="api_key-error" autofocus>' in response.text
    fresh = re.search(r'name="csrf" value="([^"]+)"', response.text)
    assert fresh is not None
    assert fresh.group(1) != token.group(1)  # the form is usable again
    assert "provledger_console_signin=" in response.headers["set-cookie"]


def test_a_sign_in_form_kept_past_its_token_asks_for_the_key_again(reader: Reader) -> None:
    client = reader.client
    client.cookies.clear()
    client.get("/console/", headers=HTML)
    response = client.post(
        "/console/session", data={"csrf": "stale", "api_key": "pl_x.y"}, headers=HTML
    )
    assert response.status_code == 403
    assert "Sign-in failed: the sign-in form had expired; paste the key again." in response.text
    assert 'aria-invalid="true"' in response.text


def test_an_invalid_request_renders_inside_the_frame_naming_the_field(reader: Reader) -> None:
    response = reader.client.get(
        "/console/sources/returns-policy", params={"known_at": "soon"}, headers=HTML
    )
    assert response.status_code == 422
    assert '<nav aria-label="Console">' in response.text
    assert '<td role="cell" data-label="Field"><code>known_at</code></td>' in response.text
    assert "Sign out</button>" in response.text
