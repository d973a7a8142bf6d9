"""Signature checks in chunks, in this process or in a worker process."""

from __future__ import annotations

import pytest

import ledger.eventlog.signature_pool as pool
from ledger.crypto.signing import Keyring, PublicKeyRecord, SigningKey
from ledger.eventlog.envelope import SealedEvent, seal

KEY = SigningKey.generate()
OTHER = SigningKey.generate()


def _event(n: int, key: SigningKey = KEY) -> SealedEvent:
    return seal(
        key,
        originator_id=f"00000000-0000-0000-0000-{n:012d}",
        originator_version=1,
        topic="provledger.test",
        recorded_at="2026-01-01T00:00:00.000000Z",
        actor="test",
        payload={"n": n},
        prev=None,
    )


def _forged(n: int) -> SealedEvent:
    """Event ``n`` carrying the signature of event ``n + 1``: right key id, wrong signature."""
    good = _event(n)
    return SealedEvent(good.body, good.body_bytes, good.kid, _event(n + 1).signature)


KEYRING = Keyring([PublicKeyRecord(KEY.kid, KEY.public_key, "active", "")])


@pytest.mark.parametrize("parallel_after", [None, 0])
def test_every_good_signature_settles_to_none(parallel_after: int | None) -> None:
    with pool.SignatureChecks[int](KEYRING, chunk=7, parallel_after=parallel_after) as checks:
        for n in range(50):
            checks.add(n, _event(n))
        assert checks.settle() is None
        for n in range(50, 60):
            checks.add(n, _event(n))
        assert checks.settle() is None


@pytest.mark.parametrize(("parallel_after", "workers"), [(None, None), (0, 1), (0, 3)])
def test_settle_names_the_earliest_failure_and_keeps_it(
    parallel_after: int | None, workers: int | None
) -> None:
    with pool.SignatureChecks[int](
        KEYRING, chunk=4, parallel_after=parallel_after, workers=workers
    ) as checks:
        for n in range(30):
            checks.add(n, _forged(n) if n in (13, 22) else _event(n))
        assert checks.settle() == 13
        checks.add(30, _event(30))
        assert checks.settle() == 13


def test_a_key_outside_the_keyring_fails() -> None:
    with pool.SignatureChecks[int](KEYRING, chunk=3, parallel_after=0) as checks:
        checks.add(0, _event(0))
        checks.add(1, _event(1, OTHER))
        assert checks.settle() == 1


def test_a_dead_worker_leaves_the_checks_to_this_process() -> None:
    with pool.SignatureChecks[int](KEYRING, chunk=5, parallel_after=0, workers=2) as checks:
        for n in range(10):
            checks.add(n, _event(n))
        assert len(checks._workers) == 2
        dead = checks._workers[1]._process
        dead.kill()
        dead.wait()
        for n in range(10, 30):
            checks.add(n, _forged(n) if n == 17 else _event(n))
        assert checks.settle() == 17
        assert checks._workers == []


def test_first_bad_checks_each_item_in_order() -> None:
    keys = {KEY.kid: KEY.public_key}
    items = [(e.kid, e.signature + e.body_bytes) for e in (_event(0), _forged(1), _forged(2))]
    assert pool.first_bad(keys, items) == 1
    assert pool.first_bad(keys, items[:1]) is None
