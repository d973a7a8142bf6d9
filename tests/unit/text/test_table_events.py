"""Recorded tables across event versions: version 1 events read with one header row."""

from __future__ import annotations

from typing import Any

from ledger.eventlog.store import event_from_body
from ledger.registry.ingestion import Limits, prepare_version
from ledger.registry.source import Source
from ledger.registry.span_codec import decode_spans

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


def test_a_recorded_envelope_reads_back_as_recorded_after_the_stub_head_rule() -> None:
    # Envelopes are recorded with each version: a version added under segmenter 2, whose
    # envelopes left out the last header row's stub head, keeps them; new versions take the
    # stub head into the heading and record segmenter 3.
    raw = {**V1_TABLE, "columns": ["Quarters Ended", "2019"], "rows": [["Revenue", "4.5"]]}
    prepared = prepare_version("s", "Body.", "text/plain", "T", [raw], Limits())
    fields = prepared.event_fields("2026-01-01T00:00:00Z")
    assert fields["segmenter"] == "provledger-segmenter/3"
    (cell,) = [c for c in fields["cells"] if c[3] == 1]
    assert cell[4] == "Revenue Quarters Ended \u2014 Revenue, 2019: 4.5"

    cell[4] = "Revenue \u2014 Revenue, 2019: 4.5"  # as segmenter 2 recorded it
    spans = decode_spans(
        "s",
        fields["version_hash"],
        fields["text"],
        fields["heading_paths"],
        fields["spans"],
        fields["cells"],
    )
    (decoded,) = [s for s in spans if s.table_ref is not None and s.table_ref.col == 1]
    assert decoded.envelope == "Revenue \u2014 Revenue, 2019: 4.5"
    assert decoded.text == "4.5"
