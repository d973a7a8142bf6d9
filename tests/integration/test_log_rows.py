"""The transparency log's direct reader agrees with the library's notification log."""

from __future__ import annotations

from ledger.runtime import LedgerRuntime
from projections.log_rows import LogRow, read_rows


def test_rows_match_the_notifications_page_by_page(runtime: LedgerRuntime) -> None:
    ledger, keys = runtime.ledger, runtime.api_keys
    for n in range(7):
        keys.issue(f"key{n}", ["read"], "test:suite")
    keys.revoke("key3", "gone", "test:suite")
    expected = [
        LogRow(n.id, str(n.originator_id), n.originator_version, n.topic, bytes(n.state))
        for n in ledger.recorder.select_notifications(0, 100, inclusive_of_start=False)
    ]
    assert len(expected) == 8

    pages = [read_rows(ledger.recorder, start, 3) for start in (0, 3, 6)]

    assert [len(page) for page in pages] == [3, 3, 2]
    got = [row._replace(state=bytes(row.state)) for page in pages for row in page]
    assert got == expected
    assert read_rows(ledger.recorder, expected[-1].id, 3) == []
