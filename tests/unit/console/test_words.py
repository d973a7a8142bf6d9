"""Codes in plain words: every code the router and the expiry process can give has words."""

from __future__ import annotations

import re
from pathlib import Path

from api.console import words
from ledger.gate.model import Status
from ledger.lossboundary import MayRemove, MustKeep
from ledger.receipts.components import KINDS
from ledger.receipts.transformations import Method
from ledger.router.table import NOTES, TABLE, Outcome

PROCESSES = Path(__file__).resolve().parents[3] / "processes"
EXPIRY_PROCESS = PROCESSES / "expiry.py"
EXPIRY_RECORDED = PROCESSES / "expiry_recorded.py"


def test_every_route_and_router_reason_has_words() -> None:
    assert {o.value for o in Outcome} <= set(words.ROUTES)
    reasons = {row.reason for row in TABLE} | {reason for reason, _ in NOTES}
    assert reasons | {"declared-by-client"} <= set(words.ROUTE_REASONS)


def test_every_expiry_reason_the_expiry_process_records_has_words() -> None:
    # the process returns its expiries as (receipt id, reason, detail) tuples or targets
    text = EXPIRY_PROCESS.read_text() + EXPIRY_RECORDED.read_text()
    recorded = set(re.findall(r'\((?:str\()?\w+\)?, "([a-z_]+)", ', text))
    assert {"source_superseded", "policy_retired", "api_key_revoked"} <= recorded
    assert "context_assembly_changed" in recorded  # the scan finds what it should
    retired = {f"{kind}_retired" for kind in KINDS}  # f"{kind}_retired" in expiry_recorded.py
    assert recorded | retired | {"expires_at_passed"} <= set(words.EXPIRIES)


def test_every_claim_status_has_words() -> None:
    assert {s.value for s in Status} <= set(words.STATUSES)


def test_a_gate_reason_reads_as_the_gates_own_meaning_as_a_sentence() -> None:
    assert words.reason_words("polarity", "polarity_agrees") == (
        "Negation, hedging and direction agree."
    )


def test_a_code_without_words_is_spelled_out_never_dropped() -> None:
    assert words.expiry_words("source_moved_abroad") == "source moved abroad"
    assert words.exclusion_words("retention-hold") == "retention hold"
    assert words.reason_words("novel", "brand_new_code") == "Brand new code."
    assert words.route_words("hand_written") == "Hand written"


def test_a_refused_claim_whose_own_checks_held_says_another_claim_failed() -> None:
    assert words.refusal_words("batch") == (
        "not committed: another claim of the same request failed"
    )
    assert words.refusal_words("rejected").startswith("rejected:")


def test_every_transformation_method_and_loss_boundary_item_has_words() -> None:
    assert {m.value for m in Method} <= set(words.METHODS)
    assert {m.value for m in MayRemove} <= set(words.MAY_REMOVE)
    assert {m.value for m in MustKeep} <= set(words.MUST_KEEP)
