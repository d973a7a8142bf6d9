"""Recorded tables across event versions: version 1 events read with one header row."""

from __future__ import annotations

from typing import Any

from ledger.eventlog.store import event_from_body
from ledger.registry.ingestion import Limits, prepare_version
from ledger.registry.source import Source

V1_TABLE = {
    "table_id": "t1",
    "title": "Revenue",
    "columns": ["Segment", "FY2023"],
    "rows": [["Services", "4.5"]],
    "footnotes": [],
}


def _v1_body() -> dict[str, Any]:
    """A ``VersionAdded`` body as recorded before tables had several header rows."""
    payload = {
        "version": 1,
        "version_hash": "sha256:" + "0" * 64,
        "media_type": "text/plain",
        "title": "T",
        "text": "x",
        "effective_from": "2026-01-01T00:00:00Z",
        "segmenter": "provledger-segmenter/1",
        "heading_paths": [],
        "spans": [],
        "cells": [],
        "tables": [V1_TABLE],
    }
    return {
        "payload": payload,
        "originator_id": "00000000-0000-0000-0000-000000000001",
        "originator_version": 2,
        "recorded_at": "2026-01-01T00:00:00.000000Z",
        "actor": "ingester",
    }


def test_a_version_1_event_reads_with_its_columns_as_the_one_header_row() -> None:
    event = event_from_body(Source.VersionAdded, _v1_body())

    (table,) = event.tables  # type: ignore[attr-defined]
    assert table["header_rows"] == [["Segment", "FY2023"]]
    assert table["columns"] == ["Segment", "FY2023"]
    assert (table["caption"], table["units"], table["label_columns"]) == ("", "", 1)
    assert table["rows"] == V1_TABLE["rows"]


def test_the_stored_body_of_a_version_1_event_is_not_rewritten() -> None:
    body = _v1_body()

    event_from_body(Source.VersionAdded, body)

    assert body["payload"]["tables"] == [V1_TABLE]


def test_new_versions_record_tables_in_the_version_2_shape() -> None:
    raw = {**V1_TABLE, "columns": None, "header_rows": [["", "FY"], ["Segment", "2023"]]}
    del raw["columns"]
    raw["rows"] = [["Services", "4.5"]]
    prepared = prepare_version("s", "Body.", "text/plain", "T", [raw], Limits())

    (table,) = prepared.event_fields("2026-01-01T00:00:00Z")["tables"]

    assert Source.VersionAdded.class_version == 2
    assert table["header_rows"] == [["", "FY"], ["Segment", "2023"]]
    assert table["columns"] == ["Segment", "FY 2023"]
