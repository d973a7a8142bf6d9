"""Group commit in the signed event store: callers queued behind a write share one
transaction, and one caller's conflict or failure never changes what another gets."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from eventsourcing.persistence import OperationalError

from ledger.audit.log_verify import verify_log
from ledger.errors import Conflict, LedgerIntegrityError
from ledger.eventlog.envelope import open_state
from ledger.eventlog.store import SignedEventStore
from ledger.keys.api_keys import ApiKey, key_aggregate_id
from ledger.runtime import LedgerRuntime
from tests.tamper import Tamperer

ACTOR = "test:suite"


def _store(runtime: LedgerRuntime) -> SignedEventStore:
    store = runtime.ledger.events
    assert isinstance(store, SignedEventStore)
    return store


@contextmanager
def _queued(runtime: LedgerRuntime, calls: list[Callable[[], object]]) -> Iterator[list[Any]]:
    """Run ``calls`` in threads while the writer is busy, so that they all queue; release the
    writer once every one is queued. Yields each call's result or exception, in call order."""
    store = _store(runtime)
    outcomes: list[Any] = [None] * len(calls)

    def run(index: int) -> None:
        try:
            outcomes[index] = calls[index]()
        except Exception as exc:
            outcomes[index] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    with store._lock:  # the writer is busy
        for index, thread in enumerate(threads):
            thread.start()
            for _ in range(2000):  # bounded wait until this caller is queued, in order
                if len(store._queue) == index + 1:
                    break
                time.sleep(0.001)
            assert len(store._queue) == index + 1
    for thread in threads:
        thread.join()
    yield outcomes


def _count_inserts(
    runtime: LedgerRuntime, monkeypatch: pytest.MonkeyPatch, fail_on: int | None = None
) -> list[int]:
    """Record the number of events of each insert; optionally fail the insert numbered
    ``fail_on`` (1-based) with a database error that is not a conflict."""
    recorder = runtime.ledger.recorder
    insert = recorder.insert_events
    sizes: list[int] = []

    def counted(stored: list[Any], **kwargs: Any) -> Any:
        sizes.append(len(stored))
        if fail_on is not None and len(sizes) == fail_on:
            raise OperationalError("the database went away")
        return insert(stored, **kwargs)

    monkeypatch.setattr(recorder, "insert_events", counted)
    return sizes


def _issue(runtime: LedgerRuntime, name: str) -> Callable[[], object]:
    return lambda: runtime.api_keys.issue(name, ["read"], ACTOR)


def _between_two_others(
    runtime: LedgerRuntime,
    monkeypatch: pytest.MonkeyPatch,
    call: Callable[[], object],
    refused: type[Exception],
) -> list[int]:
    """Queue ``call`` between two other callers' writes; check that it alone is refused, with
    ``refused``, and the others written; return the sizes of the inserts made."""
    sizes = _count_inserts(runtime, monkeypatch)
    with _queued(runtime, [_issue(runtime, "a"), call, _issue(runtime, "b")]) as outcomes:
        assert isinstance(outcomes[0], str)
        assert isinstance(outcomes[1], refused)
        assert isinstance(outcomes[2], str)
    return sizes


def test_queued_callers_share_one_transaction_in_queue_order(
    runtime: LedgerRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    sizes = _count_inserts(runtime, monkeypatch)
    with _queued(runtime, [_issue(runtime, f"k{n}") for n in range(4)]) as outcomes:
        assert all(isinstance(o, str) for o in outcomes)
    assert sizes == [4]  # one insert for the four callers

    log = runtime.ledger.read_log(0, 10)
    bodies = [open_state(n.state).body for n in log]
    assert [b["originator_id"] for b in bodies] == [
        str(key_aggregate_id(f"k{n}")) for n in range(4)
    ]
    times = [b["recorded_at"] for b in bodies]
    assert times == sorted(times)
    assert len(set(times)) == 4  # each caller keeps its own ledger time
    assert verify_log(runtime.ledger.recorder, runtime.keyring).ok


def test_one_callers_conflict_does_not_fail_the_others(
    runtime: LedgerRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime.api_keys.issue("shared", ["read"], ACTOR)
    stale: ApiKey = runtime.ledger.repository.get(key_aggregate_id("shared"))
    runtime.api_keys.revoke("shared", "first", ACTOR)  # version 2 is taken
    stale.revoke("second", ACTOR)
    sizes = _between_two_others(
        runtime, monkeypatch, lambda: runtime.ledger.commit(stale), Conflict
    )
    assert sizes == [3, 1, 1, 1]  # together, refused; then one transaction each

    names = [
        open_state(n.state).body["payload"].get("name") for n in runtime.ledger.read_log(0, 10)
    ]
    assert names.count("a") == 1
    assert names.count("b") == 1
    report = verify_log(runtime.ledger.recorder, runtime.keyring)
    assert report.ok, report.failure
    assert report.events == 4  # shared issued and revoked once, a, b


def test_a_database_failure_reaches_only_the_callers_not_yet_written(
    runtime: LedgerRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime.api_keys.issue("shared", ["read"], ACTOR)
    stale: ApiKey = runtime.ledger.repository.get(key_aggregate_id("shared"))
    runtime.api_keys.revoke("shared", "first", ACTOR)
    stale.revoke("second", ACTOR)
    # Inserts: the group (refused by the conflict), "a" alone, the stale one, then "b" fails.
    _count_inserts(runtime, monkeypatch, fail_on=4)

    calls = [_issue(runtime, "a"), lambda: runtime.ledger.commit(stale), _issue(runtime, "b")]
    with _queued(runtime, calls) as outcomes:
        assert isinstance(outcomes[0], str)  # written before the failure: not an error
        assert isinstance(outcomes[1], Conflict)
        assert isinstance(outcomes[2], OperationalError)
    monkeypatch.undo()

    names = [
        open_state(n.state).body["payload"].get("name") for n in runtime.ledger.read_log(0, 10)
    ]
    assert "a" in names
    assert "b" not in names
    runtime.api_keys.issue("b", ["read"], ACTOR)  # the writer recovers
    assert verify_log(runtime.ledger.recorder, runtime.keyring).ok


def test_one_callers_edited_predecessor_does_not_fail_the_others(
    runtime: LedgerRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime.api_keys.issue("edited", ["read"], ACTOR)
    held: ApiKey = runtime.ledger.repository.get(key_aggregate_id("edited"))
    held.revoke("after the edit", ACTOR)
    _store(runtime)._heads.clear()
    Tamperer(runtime).edit_body(1, actor="cli:forger")

    commit = lambda: runtime.ledger.commit(held)  # noqa: E731
    sizes = _between_two_others(runtime, monkeypatch, commit, LedgerIntegrityError)
    assert sizes == [2]  # the two others, together; nothing of the refused caller

    assert [e.originator_version for e in runtime.ledger.recorder.select_events(held.id)] == [1]
