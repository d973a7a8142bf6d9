"""The console in a real browser: sign in, citations, as-of, verification, escaping."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import (
    SCREENSHOTS_ENV,
    LiveConsole,
    Screenshot,
    axe_violations,
    screenshot_folder,
    sign_in,
)


def _receipt(page: Page, live: LiveConsole) -> None:
    page.goto(f"{live.base}/console/receipts/{live.seeded.receipt_id}")


def test_a_reader_signs_in_with_a_key_and_opens_a_receipt(
    page: Page, live: LiveConsole, screenshot: Screenshot
) -> None:
    page.goto(f"{live.base}/console")
    expect(page.locator("input[type=password]")).to_have_count(1)
    screenshot(page, "sign-in")
    sign_in(page, live)
    cookies = {c["name"]: c for c in page.context.cookies()}
    session = cookies["provledger_console"]
    assert session["httpOnly"] is True
    assert session["sameSite"] == "Strict"
    assert live.secret not in session["value"]
    assert page.evaluate("document.cookie") == ""  # nothing readable by script
    screenshot(page, "receipts")
    page.click(f"a[href='/console/receipts/{live.seeded.receipt_id}']")
    expect(page.locator("h1")).to_contain_text(live.seeded.receipt_id)
    expect(page.locator("article.claim")).to_have_count(2)
    transformation = page.locator("article.transformation")
    expect(transformation).to_have_count(1)
    expect(transformation.locator("blockquote")).to_contain_text("assessed individually")
    screenshot(page, "receipt")


def test_expanding_a_citation_shows_the_marked_words_and_is_counted(
    page: Page, live: LiveConsole, screenshot: Screenshot
) -> None:
    sign_in(page, live)
    _receipt(page, live)
    citation = page.locator("details.citation", has_text="Damaged goods")
    expect(citation.locator("mark").first).not_to_be_visible()
    with page.expect_response(re.compile(r"/console/engagement$")) as beacon:
        citation.locator("summary").focus()
        page.keyboard.press("Enter")  # keyboard alone opens it
    assert beacon.value.status == 204
    expect(citation).to_have_attribute("open", "")
    marks = citation.locator("mark").all_inner_texts()
    assert "returned within 30 days" in marks
    expect(citation.locator(".breadcrumb")).to_contain_text("Damaged goods")
    expect(citation.locator(".warning").first).to_contain_text("newer version")
    expect(citation.locator("ul.checks")).to_contain_text("polarity_agrees")
    screenshot(page, "receipt-citation")
    page.reload()
    claim = page.locator("article.claim", has=page.locator("details", has_text="Damaged goods"))
    expect(claim.locator(".engagement")).to_contain_text("expanded 1 time,")


def test_following_a_citation_to_its_source_is_counted(page: Page, live: LiveConsole) -> None:
    sign_in(page, live)
    _receipt(page, live)
    citation = page.locator("details.citation", has_text="Annual report")
    citation.locator("summary").click()
    citation.locator("a.follow").click()
    page.wait_for_url(re.compile(r"/console/sources/annual-report"))
    # The beacon (a keepalive fetch) races the navigation, and its answer is not always
    # reported to the page it left: read the count again until the beacon has landed.
    facts = page.locator("dl.facts")
    for _ in range(100):  # about Playwright's own default wait, 30 s
        if "followed here 1 time" in facts.inner_text():
            break
        page.wait_for_timeout(200)
        page.reload()
    expect(page.locator("dl.facts")).to_contain_text("followed here 1 time")


def test_a_source_page_switches_to_an_earlier_date(
    page: Page, live: LiveConsole, screenshot: Screenshot
) -> None:
    sign_in(page, live)
    page.goto(f"{live.base}/console/sources/returns-policy")
    expect(page.locator("#version-2")).to_be_visible()
    expect(page.locator("ol.diff ins", has_text="14")).to_be_visible()
    screenshot(page, "source")
    page.fill("input[name=known_at]", live.seeded.policy_v1_recorded_at)
    page.click("text=Show the source as of then")
    expect(page.locator(".asof time")).to_have_attribute(
        "datetime", live.seeded.policy_v1_recorded_at
    )
    expect(page.locator("#version-2")).to_have_count(0)
    expect(page.locator("#version-1 .badge")).to_have_text("current")
    screenshot(page, "source-as-of")


def test_verifying_a_claim_runs_the_audit_checks_in_the_page(
    page: Page, live: LiveConsole, screenshot: Screenshot
) -> None:
    sign_in(page, live)
    _receipt(page, live)
    page.get_by_role("button", name="Verify claim 1").click()
    expect(page.locator(".verdict")).to_have_text("Verified: every check of the bundle held.")
    assert page.locator(".checklist li.failed").count() == 0
    assert page.locator(".checklist li.held").count() >= 5
    expect(page.locator("pre.command")).to_contain_text("provledger audit verify bundle.json")
    screenshot(page, "verify")


def test_the_transparency_page_checks_a_saved_checkpoint(
    page: Page, live: LiveConsole, screenshot: Screenshot
) -> None:
    sign_in(page, live)
    page.goto(f"{live.base}/console/transparency")
    note = page.locator("pre.note").inner_text()
    page.fill("textarea[name=checkpoint]", note)
    page.click("text=Check consistency")
    expect(page.locator(".verdict")).to_have_text(
        "Consistent: the log only grew since that checkpoint."
    )
    screenshot(page, "transparency")


def test_the_replay_page_shows_the_ledger_as_of_a_date(
    page: Page, live: LiveConsole, screenshot: Screenshot
) -> None:
    sign_in(page, live)
    page.goto(f"{live.base}/console/replay")
    page.fill("input[name=at]", "2099-12-31")
    page.click("text=Show the ledger as of then")
    expect(page.locator("pre.command")).to_contain_text("provledger replay --until")
    expect(page.locator("table.list").first).to_contain_text("returns-policy")
    screenshot(page, "replay")


def test_the_prompt_cache_page_shows_each_prefix_ratio_and_passes_axe(
    page: Page, live: LiveConsole, screenshot: Screenshot
) -> None:
    with httpx.Client(base_url=live.base, timeout=60) as client:
        for write, read in ((4096, 0), (0, 4096), (0, 4096)):
            usage = {
                "input_tokens": 120,
                "cache_creation_input_tokens": write,
                "cache_read_input_tokens": read,
            }
            answer = client.post(
                f"/v1/receipts/{live.seeded.receipt_id}/usage", json=usage, headers=live.admin
            )
            assert answer.status_code == 201, answer.text
    sign_in(page, live)
    page.get_by_role("link", name="Prompt cache").click()
    expect(page.locator("h1")).to_have_text("Prompt cache")
    expect(page.locator("table.prefixes td.ratio").first).to_contain_text("pays back its writes")
    assert axe_violations(page) == []
    screenshot(page, "prompt-cache")


def test_script_payloads_in_sources_and_claims_stay_inert(
    page: Page, live: LiveConsole, screenshot: Screenshot
) -> None:
    sign_in(page, live)
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text))
    for path in (
        f"/console/receipts/{live.seeded.hostile_receipt_id}",
        "/console/sources/hostile",
        "/console/receipts",
        "/console/replay?at=2099-12-31",
    ):
        page.goto(live.base + path)
        for summary in page.locator("details summary").all():
            summary.click()
        assert page.evaluate("typeof window.__xss") == "undefined", path
        assert page.locator("img").count() == 0, path
        assert page.locator("a[href^='javascript:' i]").count() == 0, path
    assert page.dialogs == []  # type: ignore[attr-defined]
    page.goto(f"{live.base}/console/receipts/{live.seeded.hostile_receipt_id}")
    expect(page.locator(".claim-text").first).to_contain_text("<script>window.__xss=1</script>")
    screenshot(page, "escaping")


def test_a_receipt_reads_without_javascript(browser: Browser, live: LiveConsole) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    sign_in(page, live)
    _receipt(page, live)
    citation = page.locator("details.citation", has_text="Damaged goods")
    citation.locator("summary").click()
    expect(citation.locator("mark", has_text="returned within 30 days")).to_be_visible()
    context.close()


def test_screenshots_stay_out_of_the_checkout_unless_a_folder_is_asked_for(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout = Path(__file__).resolve().parents[2]
    monkeypatch.delenv(SCREENSHOTS_ENV, raising=False)
    assert checkout not in screenshot_folder(tmp_path_factory).parents
    asked = tmp_path_factory.mktemp("asked") / "docs" / "console"
    monkeypatch.setenv(SCREENSHOTS_ENV, str(asked))
    assert screenshot_folder(tmp_path_factory) == asked
    assert asked.is_dir()
