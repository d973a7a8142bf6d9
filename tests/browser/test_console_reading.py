"""The console as its readers use it: axe-core on every page with its citations open, the
keyboard alone from a receipt's citation to the marked sentence and to a verification, the
receipt list's columns, claims in commit order with refused ones apart, errors inside the
console's frame, reflow at 320 CSS px and the focus ring's contrast (WCAG 2.2 AA)."""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.browser.conftest import (
    LiveConsole,
    Screenshot,
    axe_violations,
    open_every_details,
    sign_in,
)
from tests.e2e.console.seed import AMENDED_OUTCOME, FIRST_OUTCOME

KEYS_PER_PAGE = 400
"""The most Tab presses a test walks through one page before it gives up."""


def _pages(live: LiveConsole) -> dict[str, str]:
    """Every page a signed-in reader can reach by GET, by name."""
    seeded, mixed = live.seeded, live.mixed
    span = seeded.window_span_id
    return {
        "receipts": "/console/receipts",
        "receipt": f"/console/receipts/{seeded.receipt_id}",
        "receipt-mixed": f"/console/receipts/{mixed.receipt_id}",
        "receipt-hostile": f"/console/receipts/{seeded.hostile_receipt_id}",
        "source": "/console/sources/returns-policy",
        "source-cited": f"/console/sources/returns-policy?span={span}&version=1#cited",
        "source-as-of": "/console/sources/returns-policy?known_at="
        + quote(seeded.policy_v1_recorded_at),
        "source-not-yet": "/console/sources/returns-policy?known_at=2000-01-01",
        "source-table": "/console/sources/segment-report",
        "transparency": "/console/transparency",
        "replay": "/console/replay",
        "replay-at": "/console/replay?at=2099-12-31",
        "replay-early": "/console/replay?at=2000-01-01",
        "prompt-cache": "/console/prompt-cache",
        "not-found": "/console/receipts/rcpt_nope",
        "invalid": "/console/sources/returns-policy?known_at=soon",
    }


def _claim(page: Page, text: str) -> Locator:
    """The claim whose own text is ``text`` (not one that merely quotes it in an excerpt)."""
    own = re.compile("^" + re.escape(text) + "$")
    return page.locator("article.claim", has=page.locator(".claim-text", has_text=own))


def _report(violations: list[dict[str, object]]) -> str:
    return "\n".join(f"{v['id']} ({v['impact']}): {v['help']} at {v['nodes']}" for v in violations)


def test_no_page_has_an_axe_violation_of_any_impact_with_its_citations_open(
    page: Page, live: LiveConsole, screenshot: Screenshot
) -> None:
    found: dict[str, str] = {}
    page.goto(f"{live.base}/console")
    if violations := axe_violations(page):
        found["sign-in"] = _report(violations)
    page.fill("#api_key", "pl_nobody.secret")
    page.click("button[type=submit]")
    expect(page.locator("#api_key-error")).to_be_visible()
    if violations := axe_violations(page):
        found["sign-in-refused"] = _report(violations)
    sign_in(page, live)
    for name, path in _pages(live).items():
        page.goto(live.base + path)
        open_every_details(page)
        if violations := axe_violations(page):
            found[name] = _report(violations)
        if name == "source-not-yet":
            screenshot(page, name)
    page.goto(f"{live.base}/console/receipts/{live.seeded.receipt_id}")
    page.get_by_role("button", name="Verify claim 1").click()
    expect(page.locator(".verdict")).to_be_visible()
    if violations := axe_violations(page):
        found["verify"] = _report(violations)
    page.goto(f"{live.base}/console/transparency")
    page.fill("textarea[name=checkpoint]", page.locator("pre.note").inner_text())
    page.get_by_role("button", name="Check consistency").click()
    expect(page.locator(".verdict")).to_be_visible()
    if violations := axe_violations(page):
        found["transparency-checked"] = _report(violations)
    assert found == {}, "\n".join(f"{name}:\n{report}" for name, report in found.items())


def _tab_to(page: Page, matches: Callable[[], bool], what: str) -> None:
    """Press Tab until ``matches()`` holds for the focused element."""
    for _ in range(KEYS_PER_PAGE):
        page.keyboard.press("Tab")
        if matches():
            return
    pytest.fail(f"Tab never reached {what}")


def _focused(page: Page, script: str) -> bool:
    return bool(
        page.evaluate(f"(() => {{ const e = document.activeElement; return {script}; }})()")
    )


def test_the_keyboard_alone_opens_a_citation_follows_it_to_the_marked_sentence_and_verifies(
    page: Page, live: LiveConsole, screenshot: Screenshot
) -> None:
    page.goto(f"{live.base}/console")
    _tab_to(page, lambda: _focused(page, "e.id === 'api_key'"), "the key field")
    page.keyboard.type(live.secret)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live.base}/console/receipts")
    receipt = live.mixed.receipt_id
    _tab_to(
        page,
        lambda: _focused(page, f"e.getAttribute('href') === '/console/receipts/{receipt}'"),
        "the mixed receipt's link",
    )
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live.base}/console/receipts/{receipt}")
    claim = _claim(page, "Exchanges are free of charge.")
    citation = claim.locator("details.citation").first
    _tab_to(
        page,
        lambda: _focused(
            page,
            "e.tagName === 'SUMMARY' && e.closest('article')"
            ".querySelector('.claim-text').textContent === 'Exchanges are free of charge.'",
        ),
        "the citation of claim 5",
    )
    page.keyboard.press("Enter")
    expect(citation).to_have_attribute("open", "")
    expect(citation.locator("mark").first).to_be_visible()
    _tab_to(page, lambda: _focused(page, "e.classList.contains('follow')"), "the source link")
    page.keyboard.press("Enter")
    page.wait_for_url(
        re.compile(r"/console/sources/returns-policy\?span=sp_[0-9a-f]+&version=2#cited$")
    )
    marked = page.locator("#cited mark.cited-span")
    expect(marked).to_have_text("Exchanges are free of charge.")
    expect(marked).to_be_in_viewport()
    expect(page.locator("#cited .context").first).to_contain_text("Refunds are paid")
    screenshot(page, "source-cited")
    page.go_back()
    page.wait_for_url(f"{live.base}/console/receipts/{receipt}")
    page.keyboard.press("Tab")  # the focus starts over from the page's top
    _tab_to(
        page,
        lambda: _focused(page, "e.tagName === 'BUTTON' && e.textContent === 'Verify claim 5'"),
        "the button that verifies claim 5",
    )
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/verify#result$"))
    expect(page.locator(".verdict")).to_have_text("Verified: every check of the bundle held.")
    assert _focused(page, "e.id === 'result'"), "the result has the focus"
    expect(page.locator(".standing")).to_contain_text("every cited version is current")


def test_the_receipt_list_shows_request_actor_purpose_claim_counts_and_status(
    page: Page, live: LiveConsole, screenshot: Screenshot
) -> None:
    sign_in(page, live)
    headers = page.locator("table.receipts thead th").all_inner_texts()
    assert headers == ["Request", "Opened", "Actor", "Purpose", "Policy", "Claims", "Status"]
    row = page.locator("table.receipts tbody tr", has_text=live.mixed.receipt_id)
    cells = [" ".join(t.split()) for t in row.locator("td").all_inner_texts()]
    assert cells[0] == (
        "How did the segments do in 2023, and what is the returns policy now? "
        + live.mixed.receipt_id
    )
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", cells[1]), cells[1]
    assert cells[2:6] == ["auditor-demo", "quarterly-review", "2026.1", "5 committed, 2 refused"]
    assert cells[6] == "open"
    exact = row.locator("time").get_attribute("title")
    assert exact is not None
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", exact)
    expired = page.locator("table.receipts tbody tr", has_text=live.seeded.receipt_id)
    expect(expired.locator("td").last).to_contain_text(
        "expired a newer version of a cited source replaced the cited one"
    )


def test_committed_claims_come_in_commit_order_and_refused_ones_apart_without_a_badge(
    page: Page, live: LiveConsole, screenshot: Screenshot
) -> None:
    sign_in(page, live)
    page.goto(f"{live.base}/console/receipts/{live.mixed.receipt_id}")
    committed = page.locator("section[aria-labelledby=claims-h] article.claim .claim-n")
    assert committed.all_inner_texts() == [f"Claim {n}." for n in live.mixed.committed_order]
    repaired = _claim(page, "Services revenue was 4.5 million in FY2023.")
    expect(repaired.locator(".verdicts dt").first).to_contain_text("by a repair, on")
    refused = page.locator("details.refused")
    expect(refused).not_to_have_attribute("open", "")
    expect(refused.locator("> summary")).to_have_text(
        "2 claims refused and never committed: kept for audit"
    )
    refused.locator("> summary").click()
    numbers = refused.locator("article.claim .claim-n").all_inner_texts()
    assert numbers == [f"Claim {n}." for n in live.mixed.refused]
    batch = _claim(page, "Hardware revenue was $2.1 million in FY2023.")
    expect(batch.locator(".refused-label")).to_have_text(
        "not committed: another claim of the same request failed"
    )
    assert refused.locator(".badge-verified").count() == 0
    expect(refused.get_by_role("button")).to_have_count(0)  # nothing to verify
    for n in live.mixed.committed_order:
        expect(page.get_by_role("button", name=f"Verify claim {n}", exact=True)).to_have_count(1)
        expect(
            page.get_by_role("link", name=f"Download claim {n}'s audit bundle", exact=True)
        ).to_have_count(1)
    expect(page.locator("h1 .badge")).to_have_count(0)
    command = page.locator("section[aria-labelledby=offline-h] pre.command").inner_text()
    assert "CLAIM_ID" not in command
    listed = re.search(r"for claim in ([^;]+); do", command)
    assert listed is not None
    assert listed.group(1).split() == [
        live.mixed.claim_ids[n - 1] for n in live.mixed.committed_order
    ]
    screenshot(page, "receipt-refused")


def test_the_expiry_is_said_once_per_receipt_and_each_claim_states_its_standing(
    page: Page, live: LiveConsole
) -> None:
    sign_in(page, live)
    page.goto(f"{live.base}/console/receipts/{live.seeded.receipt_id}")
    open_every_details(page)
    expect(page.locator("main")).to_contain_text("This receipt expired on")
    assert page.locator("main").inner_text().count("expired on") == 1 + 2  # + each standing
    assert page.locator("details.citation .warning", has_text="expired").count() == 0
    standing = _claim(page, "Damaged goods are returned within 30 days of delivery.").locator(
        ".standing"
    )
    expect(standing).to_contain_text("The receipt expired on")
    expect(standing).to_contain_text("Returns and Credits Policy version 1 was superseded on")
    cell = _claim(page, "Product revenue was 1,200 in 2019.").locator("p.cell")
    expect(cell).to_have_text("A cell of the table Revenue: row Product, column 2019, value 1,200.")


def test_a_receipt_shows_its_outcome_reviewer_and_actions_without_an_axe_violation(
    page: Page, live: LiveConsole
) -> None:
    sign_in(page, live)
    page.goto(f"{live.base}/console/receipts/{live.seeded.receipt_id}")
    outcome = page.get_by_role("region", name="Outcome and downstream actions")
    expect(outcome.locator("dd.decision")).to_have_text(AMENDED_OUTCOME["decision"])
    expect(outcome.locator("dd.reviewer")).to_have_text("reviewer-4")
    earlier = outcome.locator("details.earlier-outcomes")
    expect(earlier.locator("li")).to_be_hidden()
    earlier.locator("summary").click()
    expect(earlier.locator("li")).to_contain_text(FIRST_OUTCOME["decision"])
    table = outcome.get_by_role("table", name="Downstream actions, in the order first recorded")
    rows = table.locator("tbody").get_by_role("row")
    expect(rows).to_have_count(3)
    expect(rows.nth(2)).to_contain_text("refund-903")
    expect(rows.nth(2)).to_contain_text("card ending 4242")
    expect(outcome).to_contain_text("replay, remedy or document the non-impact of each action")
    assert axe_violations(page) == []


def test_errors_render_inside_the_console_and_sign_in_errors_on_the_form(
    page: Page, live: LiveConsole, screenshot: Screenshot
) -> None:
    page.goto(f"{live.base}/console")
    page.fill("#api_key", "pl_nobody.secret")
    with page.expect_response(re.compile(r"/console/session$")) as answer:
        page.click("button[type=submit]")
    assert answer.value.status == 401
    field = page.locator("#api_key")
    expect(field).to_be_focused()
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#api_key-error")).to_contain_text("unknown or revoked API key")
    screenshot(page, "sign-in-refused")
    sign_in(page, live)  # the form still works: a fresh token came with the error
    for path, status, text in (
        ("/console/receipts/rcpt_nope", 404, "no receipt 'rcpt_nope'"),
        ("/console/sources/returns-policy?known_at=soon", 422, "known_at"),
    ):
        response = page.goto(live.base + path)
        assert response is not None
        assert response.status == status
        expect(page.get_by_role("navigation", name="Console")).to_be_visible()
        expect(page.get_by_role("button", name="Sign out")).to_be_visible()
        expect(page.locator("main")).to_contain_text(text)
        expect(page.get_by_role("link", name="Sign in")).to_have_count(0)
    screenshot(page, "error-in-frame")


def test_after_a_form_post_the_focus_moves_to_the_result(page: Page, live: LiveConsole) -> None:
    sign_in(page, live)
    page.goto(f"{live.base}/console/transparency")
    page.fill("textarea[name=checkpoint]", page.locator("pre.note").inner_text())
    page.get_by_role("button", name="Check consistency").click()
    expect(page.locator("#result")).to_be_focused()
    expect(page.locator("#result")).to_be_in_viewport()


WIDE_AT_320 = """() => {
  // visually hidden (clipped to nothing, as .sr and a card list's header row are): not shown
  const clipped = e => {
    for (let a = e; a; a = a.parentElement) if (getComputedStyle(a).clip !== 'auto') return true;
    return false;
  };
  const width = document.documentElement.clientWidth;
  const over = [];
  for (const e of document.querySelectorAll('body *')) {
    const box = e.getBoundingClientRect();
    if (box.width === 0 || clipped(e)) continue;
    if (e.classList.contains('skip') && e !== document.activeElement) continue;
    if (box.right > width + 0.5 || box.left < -0.5) over.push(e.tagName + '.' + e.className);
  }
  return {scroll: document.documentElement.scrollWidth, width, over: over.slice(0, 10)};
}"""


def test_every_page_reflows_at_320_css_pixels_without_horizontal_scrolling(
    browser: Browser, live: LiveConsole, screenshot: Screenshot
) -> None:
    context = browser.new_context(viewport={"width": 320, "height": 640})
    page = context.new_page()
    sign_in(page, live)
    problems = {}
    for name, path in _pages(live).items():
        page.goto(live.base + path)
        open_every_details(page)
        found = page.evaluate(WIDE_AT_320)
        if found["scroll"] > found["width"] or found["over"]:
            problems[name] = found
        if name == "receipts":
            screenshot(page, "receipts-320px")
    context.close()
    assert problems == {}


RING = """() => {
  const e = document.activeElement;
  if (!e || e === document.body || e === document.documentElement) return null;
  const style = getComputedStyle(e);
  function rgb(text) {
    const m = text.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1};
  }
  let node = e.parentElement, behind = null;
  while (node) {
    const c = rgb(getComputedStyle(node).backgroundColor);
    if (c && c.a > 0) { behind = c; break; }
    node = node.parentElement;
  }
  behind = behind || {r: 255, g: 255, b: 255, a: 1};
  function lum(c) {
    const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  }
  const ring = rgb(style.outlineColor);
  const [hi, lo] = [lum(ring), lum(behind)].sort((a, b) => b - a);
  return {
    what: e.tagName + (e.id ? '#' + e.id : '') + ' ' + (e.textContent || '').trim().slice(0, 30),
    style: style.outlineStyle, width: parseFloat(style.outlineWidth),
    contrast: (hi + 0.05) / (lo + 0.05), behind: JSON.stringify(behind),
  };
}"""


def test_the_focus_ring_has_3_to_1_contrast_on_every_background_it_appears_on(
    page: Page, live: LiveConsole
) -> None:
    sign_in(page, live)
    weak = []
    seen = 0
    paths = _pages(live)
    for name in ("receipt-mixed", "receipt", "source-cited", "replay-at", "transparency"):
        page.goto(live.base + paths[name])
        open_every_details(page)
        page.locator("body").focus()
        start = None
        for _ in range(KEYS_PER_PAGE):
            page.keyboard.press("Tab")
            ring = page.evaluate(RING)
            if ring is None:
                continue  # the focus left the page's controls, on its way round
            if ring["what"] == start:
                break  # around the page once
            start = start or ring["what"]
            seen += 1
            if ring["style"] != "solid" or ring["width"] < 2 or ring["contrast"] < 3:
                weak.append((name, ring))
    assert seen > 50
    assert weak == []
