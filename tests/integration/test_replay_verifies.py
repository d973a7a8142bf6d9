"""Replay re-verifies every event: a tampered log stops it at the first bad event."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger.errors import ReplayError
from ledger.runtime import LedgerRuntime
from projections.replay import replay
from tests.tamper import Tamperer, two_key_history


@pytest.fixture
def populated(runtime: LedgerRuntime) -> LedgerRuntime:
    """Notifications 1-6: alpha v1, beta v1, alpha v2, beta v2, alpha v3, beta v3."""
    two_key_history(runtime, 6)
    return runtime


def _replay(runtime: LedgerRuntime, out: Path):  # type: ignore[no-untyped-def]
    return replay(runtime.ledger.recorder, runtime.ledger.signed_mapper, runtime.keyring, out)


def test_an_intact_log_replays(
    populated: LedgerRuntime, signature_mode: str, tmp_path: Path
) -> None:
    result = _replay(populated, tmp_path / "r")
    assert (result.events, result.last_position) == (6, 6)


def test_a_bad_signature_stops_the_replay(
    populated: LedgerRuntime, signature_mode: str, tmp_path: Path
) -> None:
    Tamperer(populated).forge_signature(4)

    with pytest.raises(ReplayError, match=r"notification 4 .*bad_signature"):
        _replay(populated, tmp_path / "r")


def test_an_earlier_bad_signature_is_named_before_a_later_broken_link(
    populated: LedgerRuntime, signature_mode: str, tmp_path: Path
) -> None:
    Tamperer(populated).forge_signature(2)
    Tamperer(populated).delete(3)  # alpha v2 gone: alpha v3 (notification 5) is out of order

    with pytest.raises(ReplayError, match=r"notification 2 .*bad_signature"):
        _replay(populated, tmp_path / "r")


def test_a_broken_link_alone_is_named(
    populated: LedgerRuntime, signature_mode: str, tmp_path: Path
) -> None:
    Tamperer(populated).delete(3)

    with pytest.raises(ReplayError, match=r"notification 5 .*missing_event"):
        _replay(populated, tmp_path / "r")
