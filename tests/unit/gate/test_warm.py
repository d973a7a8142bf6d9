"""The gate's start-up warm-up: it loads the per-process tables and judges as the gate does."""

from __future__ import annotations

from ledger.gate import Status
from ledger.gate.lexicon.opposites import opposable, opposites
from ledger.gate.warm import warm_up


def test_warm_up_judges_both_built_in_claims_verified() -> None:
    assert warm_up() == (Status.VERIFIED, Status.VERIFIED)


def test_warm_up_loads_the_antonym_table() -> None:
    opposites.cache_clear()
    opposable.cache_clear()
    warm_up()
    assert opposites.cache_info().currsize == 1
    assert opposable.cache_info().currsize == 1
