"""The registry projection: exactly once, rebuildable to identical rows, on both backends."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import Table, func, select

from ledger.errors import InvalidInput
from ledger.registry.source_desk import SourceDraft
from ledger.runtime import LedgerRuntime
from projections.schema import spans, versions
from projections.service import ReadSide

TEXT = "The board met on Jan. 5. Revenue rose 2.2% to $4.5 million. No dividend was declared."


def _ingest(runtime: LedgerRuntime, count: int) -> None:
    for i in range(count):
        runtime.sources.register(
            f"doc-{i}",
            SourceDraft(f"{TEXT} Document {i}.", "text/plain", f"Doc {i}"),
            "derived",
            "test:suite",
        )


def _rows(read_side: ReadSide, table: Table = spans) -> int:
    with read_side.db.sync.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(table)).scalar_one())


def test_catch_up_applies_each_event_once_across_restarts(runtime: LedgerRuntime) -> None:
    _ingest(runtime, 3)
    first = ReadSide(runtime.ledger, runtime.database)
    first.catch_up()
    rows = _rows(first)
    first.close()

    _ingest_more = runtime.sources.register(
        "late", SourceDraft("One more sentence here.", "text/plain", "Late"), "advisory", "t"
    )
    second = ReadSide(runtime.ledger, runtime.database)
    try:
        second.catch_up()
        second.catch_up()
        assert _rows(second) == rows + len(_ingest_more.spans)
        assert second.registry.position() == runtime.ledger.last_position()
    finally:
        second.close()


def test_two_runners_on_one_database_never_double_apply(runtime: LedgerRuntime) -> None:
    _ingest(runtime, 4)
    one = ReadSide(runtime.ledger, runtime.database)
    two = ReadSide(runtime.ledger, runtime.database)
    try:
        one.catch_up()
        two.catch_up()
        _ingest(runtime, 0)
        assert one.digest() == two.digest()
        with one.db.sync.connect() as conn:
            assert conn.execute(select(func.count()).select_from(versions)).scalar_one() == 4
    finally:
        one.close()
        two.close()


def test_rebuild_gives_identical_rows(runtime: LedgerRuntime) -> None:
    _ingest(runtime, 3)
    runtime.sources.add_version(
        "doc-1", SourceDraft("A changed text. With two sentences.", "text/plain", "Doc 1"), "t"
    )
    runtime.sources.withdraw("doc-2", "retracted", "t")
    read_side = ReadSide(runtime.ledger, runtime.database)
    try:
        read_side.catch_up()
        before = read_side.digest()
        assert read_side.rebuild() == before
    finally:
        read_side.close()


def test_ingestion_is_all_or_nothing_when_the_text_is_rejected(runtime: LedgerRuntime) -> None:
    _ingest(runtime, 1)
    position = runtime.ledger.last_position()
    with pytest.raises(InvalidInput) as caught:
        runtime.sources.register("bad", SourceDraft("", "text/plain", "Empty"), "derived", "t")
    assert caught.value.field == "text"
    assert runtime.ledger.last_position() == position


def test_concurrent_registrations_of_one_id_create_one_source(runtime: LedgerRuntime) -> None:
    results: list[object] = []

    def register() -> None:
        receipt = runtime.sources.register(
            "race", SourceDraft("Same text for both.", "text/plain", "Race"), "derived", "t"
        )
        results.append(receipt.created)

    threads = [threading.Thread(target=register) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(results, key=str) == [False, False, False, True]
    assert runtime.ledger.last_position() == 2


def test_the_position_moves_past_events_of_other_kinds(runtime: LedgerRuntime) -> None:
    """A projection whose events are rare must not rescan everything after its last one."""
    _ingest(runtime, 1)
    read_side = ReadSide(runtime.ledger, runtime.database)
    read_side.catch_up()
    for n in range(5):  # events the registry does not read
        runtime.api_keys.issue(f"app-{n}", ["read"], "test:suite")
    end = runtime.ledger.last_position()
    assert read_side.registry.catch_up() == end
    assert read_side.registry.position() == end

    scans: list[int] = []
    select_notifications = runtime.ledger.recorder.select_notifications

    def counted(*args: object, **kwargs: object) -> object:
        scans.append(1)
        return select_notifications(*args, **kwargs)  # type: ignore[arg-type]

    read_side.registry._known = None
    runtime.ledger.recorder.select_notifications = counted  # type: ignore[method-assign]
    read_side.registry.catch_up()
    assert scans == []  # nothing new: the log is not read at all
    read_side.close()


def test_an_event_written_after_the_end_was_read_is_not_skipped(
    runtime: LedgerRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    _ingest(runtime, 1)
    read_side = ReadSide(runtime.ledger, runtime.database)
    read_side.catch_up()
    runtime.api_keys.issue("app", ["read"], "test:suite")
    last_position = runtime.ledger.last_position
    ends: list[int] = []

    def end_then_a_new_source() -> int:
        end = last_position()
        if not ends:  # another writer registers a source between the two reads
            _ingest_one(runtime, "late")
        ends.append(end)
        return end

    monkeypatch.setattr(runtime.ledger, "last_position", end_then_a_new_source)
    assert read_side.registry.catch_up() == ends[0]
    assert _rows(read_side, versions) == 1
    monkeypatch.undo()
    assert read_side.registry.catch_up() == runtime.ledger.last_position()
    assert _rows(read_side, versions) == 2
    read_side.close()


def _ingest_one(runtime: LedgerRuntime, source_id: str) -> None:
    runtime.sources.register(
        source_id, SourceDraft(TEXT, "text/plain", source_id), "derived", "test:suite"
    )
