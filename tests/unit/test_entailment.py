"""Entailment verdict parsing and deterministic sampling."""

from __future__ import annotations

import pytest

from ledger.errors import EntailmentError
from ledger.receipts.entailment import EntailmentVerdict, parse_verdict, sampled


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [("Yes.", "yes"), ("no", "no"), ("PARTIAL - the date differs", "partial"), ("\n yes", "yes")],
)
def test_reads_the_first_verdict_word(reply: str, verdict: str) -> None:
    assert parse_verdict(reply) == EntailmentVerdict(verdict)


def test_a_reply_without_a_verdict_is_an_error() -> None:
    with pytest.raises(EntailmentError, match="no yes/no/partial verdict"):
        parse_verdict("I cannot tell.")


def test_sampling_is_deterministic_and_follows_the_rate() -> None:
    ids = [f"clm_{i:024x}" for i in range(2000)]
    picked = [claim_id for claim_id in ids if sampled(claim_id, 0.25)]
    assert picked == [claim_id for claim_id in ids if sampled(claim_id, 0.25)]
    assert 400 < len(picked) < 600
    assert not any(sampled(claim_id, 0.0) for claim_id in ids)
    assert all(sampled(claim_id, 1.0) for claim_id in ids)
