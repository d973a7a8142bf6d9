"""Existence and version checks of one binding."""

from __future__ import annotations

from ledger.gate.citation.bindings import check_existence, check_version
from ledger.gate.model import Outcome
from tests.unit.gate._facts import span


def test_existence_passes_a_span_in_the_pool() -> None:
    result = check_existence("s1", span("s1", "Text."))
    assert (result.outcome, result.reason, result.span_id) == (Outcome.PASS, "span_exists", "s1")


def test_existence_fails_an_unknown_span() -> None:
    assert check_existence("s1", None).reason == "span_unknown"
    result = check_existence("s1", span("s1", "", exists=False))
    assert (result.outcome, result.reason) == (Outcome.FAIL, "span_unknown")


def test_existence_fails_a_span_outside_the_pool() -> None:
    result = check_existence("s1", span("s1", "Text.", in_pool=False))
    assert (result.outcome, result.reason) == (Outcome.FAIL, "span_not_in_pool")


def test_version_fails_a_withdrawn_source() -> None:
    result = check_version("s1", span("s1", "Text.", withdrawn=True))
    assert (result.outcome, result.reason) == (Outcome.FAIL, "source_withdrawn")


def test_version_fails_a_version_not_in_force_and_names_it() -> None:
    facts = span("s1", "Text.", in_force=False)
    facts = type(facts)(
        **{**{f: getattr(facts, f) for f in facts.__slots__}, "version_detail": "version 2"}
    )  # type: ignore[attr-defined]
    result = check_version("s1", facts)
    assert (result.outcome, result.reason) == (Outcome.FAIL, "version_not_in_force")
    assert "version 2" in result.detail


def test_version_passes_and_skips_an_unknown_span() -> None:
    assert check_version("s1", span("s1", "Text.")).reason == "version_in_force"
    result = check_version("s1", None)
    assert (result.outcome, result.reason) == (Outcome.SKIP, "span_unknown")
