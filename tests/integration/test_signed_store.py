"""The signed event store on SQLite and PostgreSQL, through the ledger application."""

from __future__ import annotations

import json
import threading

import pytest

from api.services import open_ledger
from api.settings import Settings
from ledger.audit.log_verify import verify_log
from ledger.errors import Conflict, InvalidInput, NotFound
from ledger.eventlog.envelope import format_hash, open_state
from ledger.keys.api_keys import ApiKey, key_aggregate_id
from ledger.runtime import LedgerRuntime

ACTOR = "test:suite"


def _log(runtime: LedgerRuntime) -> list[dict[str, object]]:
    return [json.loads(n.state) for n in runtime.ledger.read_log(0, 1000)]


def test_every_event_is_stored_signed_with_a_stable_topic(runtime: LedgerRuntime) -> None:
    runtime.api_keys.issue("reporter", ["read", "ingest"], ACTOR)

    [notification] = runtime.ledger.read_log(0, 10)
    sealed = open_state(notification.state)

    assert notification.topic == "provledger.api_key.issued"
    assert sealed.body["topic"] == "provledger.api_key.issued"
    assert sealed.body["payload"]["originator_topic"] == "provledger.api_key"
    assert sealed.body["actor"] == ACTOR
    assert sealed.body["prev"] is None
    assert sealed.kid == runtime.ledger.signing_key.kid
    assert runtime.keyring.verify(sealed.kid, sealed.body_bytes, sealed.signature)
    assert "secret" not in notification.state.decode()


def test_each_event_links_to_the_hash_of_its_predecessor(runtime: LedgerRuntime) -> None:
    ledger, keys = runtime.ledger, runtime.api_keys
    keys.issue("app", ["read"], ACTOR)
    keys.revoke("app", "rotated", ACTOR)
    keys.issue("app", ["read"], ACTOR)

    sealed = [open_state(n.state) for n in ledger.read_log(0, 10)]

    assert [s.body["originator_version"] for s in sealed] == [1, 2, 3]
    assert sealed[1].body["prev"] == format_hash(sealed[0].event_hash)
    assert sealed[2].body["prev"] == format_hash(sealed[1].event_hash)
    times = [s.body["recorded_at"] for s in sealed]
    assert times == sorted(times)
    assert len(set(times)) == 3


def test_chain_continues_across_a_restart(settings: Settings) -> None:
    first = open_ledger(settings)
    first.api_keys.issue("app", ["read"], ACTOR)
    first.close()
    second = open_ledger(settings)
    try:
        second.api_keys.revoke("app", "done", ACTOR)
        report = verify_log(second.ledger.recorder, second.keyring)
    finally:
        second.close()
    assert report.ok, report.failure
    assert report.events == 2


def test_aggregate_reads_back_from_its_signed_events(runtime: LedgerRuntime) -> None:
    secret = runtime.api_keys.issue("app", ["claims:write"], ACTOR)

    key: ApiKey = runtime.ledger.repository.get(key_aggregate_id("app"))

    assert key.name == "app"
    assert key.scopes == ["claims:write"]
    assert key.matches(secret)


def test_revoked_key_no_longer_authenticates(runtime: LedgerRuntime) -> None:
    secret = runtime.api_keys.issue("app", ["read"], ACTOR)
    assert runtime.api_keys.authenticate(secret) is not None

    runtime.api_keys.revoke("app", "leaked", ACTOR)

    assert runtime.api_keys.authenticate(secret) is None


def test_issuing_an_active_name_again_is_a_conflict_and_changes_nothing(
    runtime: LedgerRuntime,
) -> None:
    runtime.api_keys.issue("app", ["read"], ACTOR)
    before = _log(runtime)

    with pytest.raises(Conflict, match="is active; revoke it before issuing it again"):
        runtime.api_keys.issue("app", ["admin"], ACTOR)

    assert _log(runtime) == before


@pytest.mark.parametrize(
    ("name", "scopes", "field"),
    [("bad name", ["read"], "name"), ("ok", ["root"], "scopes"), ("ok", [], "scopes")],
)
def test_invalid_key_requests_leave_no_trace(
    runtime: LedgerRuntime, name: str, scopes: list[str], field: str
) -> None:
    with pytest.raises(InvalidInput) as caught:
        runtime.api_keys.issue(name, scopes, ACTOR)
    assert caught.value.field == field
    assert runtime.ledger.last_position() == 0


def test_revoking_an_unknown_key_is_not_found(runtime: LedgerRuntime) -> None:
    with pytest.raises(NotFound, match="no API key named 'ghost'"):
        runtime.api_keys.revoke("ghost", "x", ACTOR)


def test_writers_racing_on_one_aggregate_never_fork_its_chain(settings: Settings) -> None:
    """Two processes' worth of ledgers on one database: one wins, the other is refused."""
    one = open_ledger(settings)
    two = open_ledger(settings)
    try:
        one.api_keys.issue("shared", ["read"], ACTOR)
        stale = two.ledger.repository.get(key_aggregate_id("shared"))
        one.api_keys.revoke("shared", "first", ACTOR)
        stale.revoke("second", ACTOR)
        with pytest.raises(Conflict, match="retry"):
            two.ledger.commit(stale)
        # The loser's chain-head cache was dropped: it can write again after reloading.
        two.api_keys.issue("shared", ["read"], ACTOR)
        report = verify_log(one.ledger.recorder, one.keyring)
    finally:
        one.close()
        two.close()
    assert report.ok, report.failure
    assert report.events == 3


def test_concurrent_threads_keep_every_event_and_chain(runtime: LedgerRuntime) -> None:
    errors: list[BaseException] = []

    def work(index: int) -> None:
        try:
            for round_ in range(5):
                runtime.api_keys.issue(f"k{index}", ["read"], ACTOR)
                runtime.api_keys.revoke(f"k{index}", f"r{round_}", ACTOR)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    report = verify_log(runtime.ledger.recorder, runtime.keyring)
    assert report.ok, report.failure
    assert report.events == 40
    assert report.aggregates == 4
