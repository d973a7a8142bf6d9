"""The receipt template with the optional context a receipt may carry (route decision,
principal, inference, packet), rendered from a document built here."""

from __future__ import annotations

from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

from api.console.state import PACKAGE

ENV = Environment(
    loader=FileSystemLoader(PACKAGE / "templates"),
    autoescape=select_autoescape(("html",), default_for_string=True, default=True),
)


def _document(**extra: Any) -> dict[str, Any]:
    return {
        "receipt_id": "rcpt_1",
        "request": "q",
        "actor": "a",
        "purpose": "p",
        "policy_version": "1",
        "route": "hybrid_retrieval",
        "model": {"name": "m", "version": "1"},
        "tools": [],
        "as_of": "2026-01-01T00:00:00.000000Z",
        "opened_at": "2026-01-01T00:00:00.000000Z",
        "expires_at": None,
        "pool": [],
        "status": {"status": "open"},
        **extra,
    }


def _render(document: dict[str, Any]) -> str:
    context = {
        "receipt": document,
        "claims": [],
        "exclusions": [("access_denied", 2)],
        "pool_sources": [],
        "expired": False,
        "origin": "http://x",
        "root": "/console",
        "session": None,
        "csrf": "t",
    }
    return ENV.get_template("receipt.html").render(context)


def test_a_route_decision_and_principal_are_shown_escaped() -> None:
    page = _render(
        _document(
            route_decision={"router": "router/1", "outcome": "<b>x</b>", "inputs": {"k": "<s>"}},
            principal={"roles": ["analyst", "<i>"], "purpose": "p"},
            inference_id="inf-1",
            opened_by="key:app",
            packet={"format": "provledger.context/v1", "prefix_sha256": "sha256:ab"},
        )
    )
    assert "<dt>Route decision</dt>" in page
    assert "<dt>outcome</dt><dd>&lt;b&gt;x&lt;/b&gt;</dd>" in page
    assert '<code>{"k": "\\u003cs\\u003e"}</code>' in page
    assert "<dt>roles</dt><dd>analyst, &lt;i&gt;</dd>" in page
    assert "<code>inf-1</code>, opened by key:app" in page
    assert "provledger.context/v1 <code>sha256:ab</code>" in page
    assert "<code>access_denied</code> \u00d7 2" in page


def test_a_receipt_without_them_shows_none_of_their_rows() -> None:
    page = _render(_document())
    for row in ("Route decision", "Principal", "Inference", "Context packet"):
        assert f"<dt>{row}</dt>" not in page
