"""The console's pages over HTTP: receipts, citations, verification, sources, transparency,
replay, engagement and escaping (both backends)."""

from __future__ import annotations

import html
import json
import re
from datetime import timedelta

from markupsafe import escape

from api.console.views.engagement import CITATION_ENGAGEMENT
from ledger.audit.bundle.verify import verify_bundle
from ledger.crypto.signing import Keyring
from ledger.eventlog.clock import parse_time
from ledger.runtime import LedgerRuntime
from tests.e2e.console.conftest import HTML, Reader
from tests.e2e.console.seed import XSS_ATTRIBUTE, XSS_SCRIPT, XSS_URL


def _citations(page: str) -> list[str]:
    return re.findall(r'<details class="citation".*?</details>', page, re.S)


def test_a_receipt_page_shows_its_context_pool_exclusions_and_claims(reader: Reader) -> None:
    page = reader.client.get(f"/console/receipts/{reader.seeded.receipt_id}", headers=HTML).text
    for fact in ("analyst-7", "customer-support", "2026.1", "answerer 3"):
        assert f"<dd>{fact}</dd>" in page
    assert (
        '<dd class="route">Hybrid retrieval: the evidence is retrieved from a larger corpus '
        '<code class="code">hybrid_retrieval</code></dd>'
    ) in page
    assert "<code>search</code>" in page
    assert '<li>1 \u00d7 personal data <code class="code">pii</code></li>' in page
    assert "doc-secret" not in page  # exclusions show their safe reason code only
    assert page.count('<article class="claim"') == 2
    assert '<span class="badge badge-verified"' in page
    assert not re.search(r"<h1>[^\n]*badge", page)  # the receipt's status is not in its title


def test_a_receipt_page_shows_its_transformations_with_inputs_boundary_and_output(
    reader: Reader,
) -> None:
    page = reader.client.get(f"/console/receipts/{reader.seeded.receipt_id}", headers=HTML).text
    [section] = re.findall(
        r'<section aria-labelledby="transformations-h">.*?</section>', page, re.S
    )
    assert section.count('<article class="transformation"') == 1
    assert "Summary: the inputs restated in fewer words" in section
    assert re.search(r'<code class="code">tfm_[0-9a-f]{24}</code>', section)
    inputs = re.findall(r"<li><code>(sp_[0-9a-f]{24})</code> \(pool span \d+\) of", section)
    assert inputs[0] == reader.seeded.window_span_id
    assert len(inputs) == 2
    assert '<a href="/console/sources/returns-policy">returns-policy</a> version 1' in section
    assert 'repetition <code class="code">repetition</code>' in section  # may remove
    assert (
        '<li>thresholds and numbers <code class="code">numbers</code>: 2 found in the inputs, '
        "2 kept</li>"  # within 30 days, after 30 days
    ) in section
    assert "<code>provledger.loss-boundary/1</code>" in section
    assert (
        '<blockquote class="excerpt untrusted" aria-labelledby="transformation-1-output">'
        "Damaged goods are returned within 30 days of delivery; items returned after 30 days "
        "are assessed individually.</blockquote>"
    ) in section
    hostile = reader.client.get(
        f"/console/receipts/{reader.seeded.hostile_receipt_id}", headers=HTML
    ).text
    [output] = re.findall(r'<blockquote class="excerpt untrusted".*?</blockquote>', hostile, re.S)
    assert XSS_SCRIPT not in output
    assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in output


def test_a_citation_expands_in_place_to_breadcrumb_marked_excerpt_checks_and_warning(
    reader: Reader,
) -> None:
    page = reader.client.get(f"/console/receipts/{reader.seeded.receipt_id}", headers=HTML).text
    window = next(c for c in _citations(page) if "Damaged goods" in c)
    assert "<summary>[1] Returns and Credits Policy — Returns \u203a Damaged goods" in window
    assert "<li>Returns</li><li>Damaged goods</li>" in window
    marks = re.findall(r"<mark>(.*?)</mark>", window)
    assert "returned within 30 days" in marks
    assert '<span class="context"> Items returned after 30 days' in window
    assert (
        '<li class="outcome-pass"><b>held</b> Negation, hedging and direction agree. '
        "<code>polarity_agrees</code></li>"
    ) in window
    assert "A newer version of this source replaces the cited one." in window
    assert 'class="badge badge-warn">superseded<' in window


def test_a_table_cell_citation_names_its_row_label_and_column_header(reader: Reader) -> None:
    page = reader.client.get(f"/console/receipts/{reader.seeded.receipt_id}", headers=HTML).text
    cell = next(c for c in _citations(page) if '<p class="cell">' in c)
    assert (
        '<p class="cell">A cell of the table <cite>Revenue</cite>: row <b>Product</b>, '
        "column <b>2019</b>, value <b>1,200</b>.</p>"
    ) in cell
    assert "<mark>1,200</mark>" in cell
    assert "row 0" not in cell


def test_untrusted_text_is_escaped_on_every_page(reader: Reader) -> None:
    pages = [
        f"/console/receipts/{reader.seeded.hostile_receipt_id}",
        "/console/sources/hostile",
        "/console/receipts",
        "/console/replay?at=2099-01-01",
    ]
    for path in pages:
        page = reader.client.get(path, headers=HTML).text
        assert XSS_SCRIPT not in page, path
        assert "<img" not in page, path
        assert 'href="javascript:' not in page.lower(), path
        assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in page, path
    source = reader.client.get("/console/sources/hostile", headers=HTML).text
    assert str(escape(XSS_ATTRIBUTE)) in source  # quotes escaped inside the metadata
    assert f"{XSS_URL}</span> (not a web address; not linked)" in source


def test_verify_runs_the_audit_checks_on_the_claim_and_prints_the_offline_command(
    reader: Reader,
) -> None:
    response = reader.client.post(
        f"/console/claims/{reader.seeded.claim_id}/verify", data={"csrf": reader.csrf}
    )
    assert response.status_code == 200
    assert "Verified: every check of the bundle held." in response.text
    items = re.findall(r'<li class="(held|failed)">', response.text)
    assert items
    assert set(items) == {"held"}
    assert "inclusion proofs verify against the checkpoint root" in response.text
    assert "provledger audit verify bundle.json --public-key trusted-keys.json" in response.text
    assert f"/v1/claims/{reader.seeded.claim_id}/bundle" in response.text
    # beside what held, the claim's standing today: its cited version was superseded since
    standing = response.text.split('<div class="standing">')[1].split("</div>")[0]
    assert "The record verifies, but the claim no longer stands as it did" in standing
    assert re.search(
        r"Returns and Credits Policy version 1 was superseded on <time datetime=\"[^\"]+\"",
        standing,
    )


def test_the_downloaded_bundle_verifies_offline_with_the_published_keys(
    reader: Reader, runtime: LedgerRuntime
) -> None:
    response = reader.client.get(f"/console/claims/{reader.seeded.claim_id}/bundle.json")
    assert response.status_code == 200
    assert response.headers["content-disposition"].startswith("attachment;")
    keys = reader.client.get("/v1/keys").json()
    checklist = verify_bundle(response.json(), Keyring.from_json(keys))
    assert checklist.ok, checklist.items
    envelope = reader.client.get(
        f"/console/receipts/{reader.seeded.receipt_id}/envelope.json"
    ).json()
    assert envelope["payloadType"].startswith("application/vnd.provledger")


def test_an_unknown_receipt_is_a_404_problem(reader: Reader) -> None:
    response = reader.client.get("/console/receipts/rcpt_nope")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
    page = reader.client.get("/console/receipts/rcpt_nope", headers=HTML)
    assert page.status_code == 404
    assert "<h1>Not found</h1>" in page.text
    assert "HTTP 404" in page.text
    assert '<nav aria-label="Console">' in page.text  # inside the frame, signed in
    assert "Sign out</button>" in page.text


def test_a_source_page_shows_its_timeline_affected_receipts_and_diff(reader: Reader) -> None:
    page = reader.client.get("/console/sources/returns-policy", headers=HTML).text
    assert '<li id="version-2" class="version version-current">' in page
    assert '<li id="version-1" class="version version-superseded">' in page
    assert "1 receipt, 1 claim stood on this version" in page
    assert "<del>30</del>" in page
    assert "<ins>14</ins>" in page
    assert "<ins>Exchanges are free of charge.</ins>" in page


def test_a_source_page_as_known_earlier_shows_only_what_was_known(reader: Reader) -> None:
    known_at = reader.seeded.policy_v1_recorded_at
    page = reader.client.get(
        "/console/sources/returns-policy", params={"known_at": known_at}, headers=HTML
    ).text
    assert f'Shown as the ledger knew it at <time datetime="{known_at}"' in page
    assert 'id="version-1" class="version version-current"' in page
    assert 'id="version-2"' not in page
    assert "What changed" not in page


def test_a_malformed_as_of_time_is_422_naming_the_field(reader: Reader) -> None:
    response = reader.client.get("/console/sources/returns-policy", params={"known_at": "soon"})
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "known_at"
    assert response.json()["errors"][0]["rule"] == "rfc3339"
    response = reader.client.get("/console/sources/returns-policy", params={"old": 0})
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "query.old"


def test_the_receipt_list_filters_by_actor_purpose_and_status(reader: Reader) -> None:
    client = reader.client

    def ids(**params: str) -> list[str]:
        page = client.get("/console/receipts", params=params, headers=HTML).text
        return re.findall(
            r'data-label="Request" class="request"><a href="/console/receipts/([^"]+)"', page
        )

    everything = ids()
    assert set(everything) == {reader.seeded.receipt_id, reader.seeded.hostile_receipt_id}
    assert ids(actor="analyst-7") == [reader.seeded.receipt_id]
    # the policy's receipt may expire (its source was superseded) whenever the expiry
    # process runs; the hostile source is never superseded, so its receipt stays open
    assert ids(purpose="customer-support") == [reader.seeded.receipt_id]
    assert ids(actor=f"actor {XSS_ATTRIBUTE}", status="open") == [reader.seeded.hostile_receipt_id]
    assert reader.seeded.hostile_receipt_id not in ids(status="expired")
    assert ids(policy="2026.1", to="2000-01-01") == []
    response = client.get("/console/receipts", params={"from": "yesterday"})
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "from"


def test_the_receipt_list_pages_with_a_cursor(reader: Reader) -> None:
    client, admin = reader.client, reader.admin
    spans = client.get("/v1/sources/annual-report/versions/1", headers=admin).json()["spans"]
    for n in range(51):
        body = {
            "request": f"q{n}",
            "actor": "bulk",
            "purpose": "p",
            "policy_version": "2026.1",
            "route": "long_context",
            "model": {"name": "m", "version": "1"},
            "evidence": [spans[0]["span_id"]],
        }
        assert client.post("/v1/receipts", json=body, headers=admin).status_code == 201
    first = client.get("/console/receipts", params={"actor": "bulk"}, headers=HTML).text
    assert first.count('<tr role="row">') == 50 + 1  # the header row
    after = re.search(r'<a rel="next" href="([^"]+)"', first)
    assert after is not None
    second = client.get(html.unescape(after.group(1)), headers=HTML).text
    assert second.count('<tr role="row">') == 1 + 1
    assert 'rel="next"' not in second


def test_citation_engagement_is_counted_per_claim_and_source_and_exported(
    reader: Reader,
) -> None:
    client, claim_id = reader.client, reader.seeded.claim_id
    before = CITATION_ENGAGEMENT.labels("expand")._value.get()
    for kind in ("expand", "expand", "follow"):
        response = client.post(
            "/console/engagement",
            json={"claim_id": claim_id, "source_id": "returns-policy", "kind": kind},
            headers={"X-CSRF-Token": reader.csrf},
        )
        assert response.status_code == 204
    page = client.get(f"/console/receipts/{reader.seeded.receipt_id}", headers=HTML).text
    assert "expanded 2 times, followed to a source 1 time<" in page
    source = client.get("/console/sources/returns-policy", headers=HTML).text
    assert "expanded 2 times, followed here 1 time<" in source
    assert CITATION_ENGAGEMENT.labels("expand")._value.get() == before + 2
    metrics = client.get("/metrics", headers=reader.admin).text
    assert 'provledger_citation_engagement_total{kind="expand"}' in metrics


def test_an_engagement_beacon_without_its_token_or_for_another_source_is_refused(
    reader: Reader,
) -> None:
    client, claim_id = reader.client, reader.seeded.claim_id
    body = {"claim_id": claim_id, "source_id": "returns-policy", "kind": "expand"}
    assert client.post("/console/engagement", json=body).status_code == 403
    other = {**body, "source_id": "hostile"}
    response = client.post("/console/engagement", json=other, headers={"X-CSRF-Token": reader.csrf})
    assert response.status_code == 404
    wrong = {**body, "kind": "stare"}
    response = client.post("/console/engagement", json=wrong, headers={"X-CSRF-Token": reader.csrf})
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "kind"
    page = client.get(f"/console/receipts/{reader.seeded.receipt_id}", headers=HTML).text
    assert "expanded 0 times" in page


def test_the_transparency_page_checks_a_pasted_checkpoint(reader: Reader) -> None:
    client = reader.client
    page = client.get("/console/transparency", headers=HTML).text
    note = html.unescape(re.search(r'<pre class="note">(.*?)</pre>', page, re.S).group(1))
    assert "the log&#39;s own key" in page
    client.post(
        "/v1/sources",
        headers=reader.admin,
        json={
            "source_id": "later",
            "title": "Later",
            "authority": "derived",
            "text": "Later text.",
        },
    )
    checked = client.post(
        "/console/transparency",
        data={"csrf": reader.csrf, "checkpoint": note.replace("\n", "\r\n")},
    )
    assert checked.status_code == 200
    assert "Consistent: the log only grew since that checkpoint." in checked.text
    assert "consistency proof of" in checked.text
    forged = note.replace(note.split("\n")[1], str(int(note.split("\n")[1]) + 1000), 1)
    refused = client.post("/console/transparency", data={"csrf": reader.csrf, "checkpoint": forged})
    assert refused.status_code == 200
    assert "Not consistent: the log did not only grow since that checkpoint." in refused.text
    assert '<code class="code">previous-checkpoint-untrusted</code>' in refused.text


def test_the_replay_page_lists_what_was_known_at_a_date(reader: Reader) -> None:
    page = reader.client.get("/console/replay", params={"at": "2099-01-01"}, headers=HTML).text
    assert "provledger replay --until 2099-01-02T00:00:00.000000Z --out ./replay" in page
    assert "/console/sources/returns-policy/provenance.json" in page
    assert f"/console/receipts/{reader.seeded.receipt_id}/provenance.json" in page
    early = reader.client.get("/console/replay", params={"at": "2000-01-01"}, headers=HTML).text
    assert "No source was registered yet." in early
    assert "No receipt was opened yet." in early
    prov = reader.client.get(f"/console/receipts/{reader.seeded.receipt_id}/provenance.json")
    assert "wasGeneratedBy" in json.dumps(prov.json())


def test_a_withdrawn_source_is_marked_on_its_citations_and_its_page(reader: Reader) -> None:
    client = reader.client
    response = client.post(
        "/v1/sources/hostile/withdraw", json={"reason": "retracted"}, headers=reader.admin
    )
    assert response.status_code == 200
    page = client.get(f"/console/receipts/{reader.seeded.hostile_receipt_id}", headers=HTML)
    (citation,) = _citations(page.text)
    assert 'class="badge badge-warn">withdrawn<' in citation
    assert "The source has been withdrawn" in citation
    source = client.get("/console/sources/hostile", headers=HTML).text
    assert '<span class="badge badge-withdrawn">withdrawn</span>' in source
    assert "retracted</span>. Citations still resolve, marked withdrawn." in source


def test_console_requests_are_counted_under_their_console_route(reader: Reader) -> None:
    reader.client.get(f"/console/receipts/{reader.seeded.receipt_id}", headers=HTML)
    metrics = reader.client.get("/metrics", headers=reader.admin).text
    assert (
        'provledger_http_requests_total{method="GET",route="/console/receipts/{receipt_id}",'
        'status="200"}'
    ) in metrics


def test_a_repaired_citation_shows_its_repair_history(reader: Reader) -> None:
    client, admin = reader.client, reader.admin
    spans = client.get("/v1/sources/returns-policy/versions/2", headers=admin).json()["spans"]
    refunds = next(s for s in spans if s["text"].startswith("Refunds"))
    window = next(s for s in spans if s["text"].startswith("Damaged goods"))
    receipt = client.post(
        "/v1/receipts",
        headers=admin,
        json={
            "request": "How are refunds paid?",
            "actor": "a",
            "purpose": "p",
            "policy_version": "2026.1",
            "route": "long_context",
            "model": {"name": "m", "version": "1"},
            "evidence": [refunds["span_id"], window["span_id"]],
        },
    ).json()["receipt_id"]
    committed = client.post(
        f"/v1/receipts/{receipt}/claims",
        headers=admin,
        json={
            "repair": True,
            "claims": [{"text": refunds["text"], "bindings": [{"span_id": window["span_id"]}]}],
        },
    )
    assert committed.status_code == 201, committed.text
    page = client.get(f"/console/receipts/{receipt}", headers=HTML).text
    (citation,) = _citations(page)
    assert "<h4>Repair history</h4>" in citation
    assert f"moved from <code>{window['span_id']}</code>" in citation
    assert f"to <code>{refunds['span_id']}</code>" in citation
    marks = re.findall(r"<mark>(.*?)</mark>", citation)
    assert marks == ["Refunds", "paid", "original card"]


def test_the_receipt_list_and_replay_show_a_receipts_status_as_it_stood(reader: Reader) -> None:
    client, admin = reader.client, reader.admin
    spans = client.get("/v1/sources/annual-report/versions/1", headers=admin).json()["spans"]
    everyone = {"policy_version": "to-retire", "rules": [{"id": "all", "effect": "allow"}]}
    assert client.post("/v1/policies", json=everyone, headers=admin).status_code == 201
    body = {
        "request": "q",
        "actor": "retiring",
        "purpose": "p",
        "policy_version": "to-retire",
        "route": "long_context",
        "model": {"name": "m", "version": "1"},
        "evidence": [spans[0]["span_id"]],
    }
    opened = client.post("/v1/receipts", json=body, headers=admin)
    assert opened.status_code == 201, opened.text
    receipt_id, opened_at = opened.json()["receipt_id"], opened.json()["opened_at"]
    retired = client.post(
        "/v1/policies/to-retire/retire", json={"reason": "replaced"}, headers=admin
    )
    assert retired.status_code == 201, retired.text
    assert retired.json()["receipts_expired"] >= 1  # the seed's superseded receipt may go too

    def status(path: str, **params: str) -> list[str]:
        page = client.get(path, params=params, headers=HTML).text
        row = re.search(rf"/receipts/{receipt_id}\".*?</tr>", page, re.S)
        assert row is not None, page
        return re.findall(r">(open|expired)<", row.group(0))

    assert status("/console/receipts", actor="retiring") == ["expired"]
    assert status("/console/receipts", actor="retiring", status="expired") == ["expired"]
    still_open = client.get(
        "/console/receipts", params={"actor": "retiring", "status": "open"}, headers=HTML
    )
    assert receipt_id not in still_open.text
    then = (parse_time(opened_at) + timedelta(microseconds=1)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert status("/console/replay", at=then) == ["open"]
    assert status("/console/replay", at="2099-01-01") == ["expired"]
