"""Forged citation-chain bundles: every named mutation is refused with its own reason code.

Each vector of :mod:`tests.integration.bundle_forgeries` starts from a real bundle the service
produced (on SQLite and on PostgreSQL; see ``bundle_scenario``) and simulates one forgery. The
verifier runs offline: the trusted keyring, the bundle and the auditor's earlier checkpoint
are all it gets.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.services import open_ledger
from api.settings import Settings
from ledger.audit.bundle.verify import (
    BundleReason,
    BundleVerificationError,
    check_bundle,
    verify_bundle,
)
from ledger.runtime import LedgerRuntime
from tests.integration.bundle_forgeries import REPORTED, VECTORS, Mutation
from tests.integration.bundle_scenario import Scenario, build_scenario, fresh

DOCS = Path(__file__).resolve().parents[2] / "docs" / "audit.md"


@pytest.fixture
def scenario(settings: Settings) -> Iterator[Scenario]:
    runtime: LedgerRuntime = open_ledger(settings)
    try:
        yield build_scenario(settings, runtime)
    finally:
        runtime.close()


@pytest.mark.parametrize(
    ("mutation", "reason", "message"),
    [pytest.param(m, r, msg, id=name) for name, m, r, msg in VECTORS],
)
def test_a_forged_bundle_is_refused_with_its_own_reason(
    scenario: Scenario, mutation: Mutation, reason: BundleReason, message: str
) -> None:
    forgery = fresh(scenario)
    mutation(scenario, forgery)
    with pytest.raises(BundleVerificationError) as caught:
        check_bundle(forgery.bundle, scenario.keyring, forgery.previous)
    assert caught.value.reason is reason, caught.value
    assert re.search(message, caught.value.detail), caught.value.detail
    report = verify_bundle(forgery.bundle, scenario.keyring, forgery.previous)
    assert not report.ok
    assert report.reason is reason


def test_the_untouched_bundle_verifies_with_and_without_the_previous_checkpoint(
    scenario: Scenario,
) -> None:
    for previous in (scenario.previous, None):
        report = verify_bundle(fresh(scenario).bundle, scenario.keyring, previous)
        assert report.ok, report.items
        assert report.reason is None
    texts = [text for _, text in report.items]
    assert any("inclusion proofs verify against the checkpoint root" in t for t in texts)


def test_every_vector_has_a_distinct_reason_and_there_are_at_least_fifteen() -> None:
    reasons = [reason for _, _, reason, _ in VECTORS]
    assert len(VECTORS) >= 15
    assert len(set(reasons)) == len(reasons)


def test_every_reason_code_is_documented_in_the_audit_page() -> None:
    text = DOCS.read_text("utf-8")
    missing = [reason.value for reason in BundleReason if f"`{reason.value}`" not in text]
    assert missing == []


@pytest.mark.parametrize(
    ("mutation", "reason"), [pytest.param(m, r, id=name) for name, m, r in REPORTED]
)
def test_the_forgeries_reported_as_verified_are_refused(
    scenario: Scenario, mutation: Mutation, reason: BundleReason
) -> None:
    forgery = fresh(scenario)
    mutation(scenario, forgery)
    report = verify_bundle(forgery.bundle, scenario.keyring, forgery.previous)
    assert not report.ok
    assert report.reason is reason, report.items
