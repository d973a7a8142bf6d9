"""A live provledger server in a thread, a seeded ledger, and Chromium driven by Playwright.

The browser is the system's Chromium (``/usr/bin/chromium``, installed by ``.ci/run`` when
missing); Playwright's own browser download is never used. The tests fail, never skip, when
the browser is missing.

Screenshots go to a temporary folder, so a run leaves the checkout as it was; set
``PROVLEDGER_SCREENSHOTS`` to a folder (``docs/console`` regenerates the documentation's
pictures) to keep them.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import uvicorn
from playwright.sync_api import Browser, Page, sync_playwright

from api.main import create_app
from api.services import open_ledger
from api.settings import Settings
from tests.e2e.console.seed import Mixed, Seeded, seed, seed_mixed

CHROMIUM = os.environ.get("PROVLEDGER_CHROMIUM", "/usr/bin/chromium")
SCREENSHOTS_ENV = "PROVLEDGER_SCREENSHOTS"
"""Where to keep the screenshots (e.g. ``docs/console``); unset, they go to a temporary folder."""

Screenshot = Callable[[Page, str], None]


@dataclass(frozen=True)
class LiveConsole:
    """The running server and what the seed wrote."""

    base: str
    secret: str
    seeded: Seeded
    mixed: Mixed
    admin: dict[str, str]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for_expiry(client: httpx.Client, admin: dict[str, str], receipt_id: str) -> None:
    """Wait for the expiry process to expire the seed's receipt (its cited version was
    superseded), as a running service does within a moment, so pages show it expired."""
    for _ in range(300):
        status = client.get(f"/v1/receipts/{receipt_id}", headers=admin).json()["status"]
        if status["status"] == "expired":
            return
        threading.Event().wait(0.1)
    pytest.fail(f"receipt {receipt_id} did not expire after its source was superseded")


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveConsole]:
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("console") / "data", log_json=True, log_level="WARNING"
    )
    runtime = open_ledger(settings)
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(settings, runtime), host="127.0.0.1", port=port, log_level="warning"
        )
    )
    thread = threading.Thread(target=server.run, name="console-server", daemon=True)
    thread.start()
    started = threading.Event()
    while thread.is_alive() and not server.started:
        started.wait(0.05)
    assert server.started, "the console server did not start"
    base = f"http://127.0.0.1:{port}"
    admin = {"Authorization": "Bearer " + runtime.api_keys.issue("seeder", ["admin"], "test")}
    with httpx.Client(base_url=base, timeout=60) as client:
        seeded = seed(client, admin)
        mixed = seed_mixed(client, admin)
        _wait_for_expiry(client, admin, seeded.receipt_id)
    secret = runtime.api_keys.issue("auditor", ["audit:read"], "test:suite")
    try:
        yield LiveConsole(base, secret, seeded, mixed, admin)
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        runtime.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Chromium, for one module at a time: Playwright's sync API runs an event loop in this
    thread while it is open, and later tests that call ``asyncio.run`` need it gone."""
    if shutil.which(CHROMIUM) is None and not Path(CHROMIUM).exists():
        pytest.fail(f"the browser tests need Chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser, live: LiveConsole) -> Iterator[Page]:
    """A fresh browser context (no cookies), watching for dialogs and script errors."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    tab.dialogs = []  # type: ignore[attr-defined]
    tab.on("dialog", lambda dialog: (tab.dialogs.append(dialog.message), dialog.dismiss()))  # type: ignore[attr-defined]
    yield tab
    context.close()


def sign_in(page: Page, live: LiveConsole) -> None:
    """Sign in through the form."""
    page.goto(f"{live.base}/console")
    page.fill("input[type=password]", live.secret)
    with page.expect_response(re.compile(r"/console/session$")) as answer:
        page.click("button[type=submit]")
    assert answer.value.status == 303, answer.value.text()
    page.wait_for_url(f"{live.base}/console/receipts")


AXE = Path(__file__).parent / "axe" / "axe.min.js"
"""axe-core 4.14.1, the npm package's ``axe.min.js`` (MPL-2.0, its licences beside it)."""
AXE_SHA256 = "sha256-KTSJmUUM3yhJqOcLeRL8LahahJ2jnA0NU5T1HUqe2Vw="
"""Its digest as the package publishes it (``sri-history.json``): a changed copy is refused."""


def axe_script() -> str:
    """The axe-core script, after checking it is the published release."""
    script = AXE.read_bytes()
    digest = "sha256-" + base64.b64encode(hashlib.sha256(script).digest()).decode()
    assert digest == AXE_SHA256, f"{AXE} is not axe-core 4.14.1 as published ({digest})"
    return script.decode()


def axe_violations(page: Page) -> list[dict[str, object]]:
    """Every axe-core violation on the page as it is now (all rules axe runs by default,
    of any impact), each as id, impact, help and the selectors of the nodes."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(axe_script())
    found = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".map(v => ({id: v.id, impact: v.impact, help: v.help,"
        " nodes: v.nodes.map(n => n.target.join(' '))}))"
    )
    return list(found)


def open_every_details(page: Page) -> None:
    """Open every ``<details>`` on the page (citations, refused claims, inputs)."""
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")


def screenshot_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``$PROVLEDGER_SCREENSHOTS`` when set, else a fresh temporary folder."""
    chosen = os.environ.get(SCREENSHOTS_ENV, "").strip()
    folder = Path(chosen) if chosen else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def screenshot(tmp_path_factory: pytest.TempPathFactory) -> Screenshot:
    """Save a full-page screenshot named ``<name>.png`` (the pictures in docs/console.md)."""
    folder = screenshot_folder(tmp_path_factory)

    def take(page: Page, name: str) -> None:
        page.screenshot(path=str(folder / f"{name}.png"), full_page=True)

    return take
