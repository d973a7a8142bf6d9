"""Per-process caches are bounded by what they hold: the frozen-version cache's byte estimate
and the verified-event memo's entry size are what ``tracemalloc`` measures."""

from __future__ import annotations

import json
import os
import tracemalloc
import uuid
from collections import OrderedDict

import pytest

from ledger.audit.verified_reads import CACHE_SIZE, _Verified
from ledger.registry.ingestion import Limits, prepare_version
from ledger.registry.span_codec import decode_spans
from ledger.registry.verified_spans import FrozenVersion

SENTENCES = [
    "Revenue rose 12% to $4.5 million in the third quarter.",
    "The board declared no dividend for the year.",
    "Operating margin fell from 45.2% to 42.3% year-over-year.",
    "The company opened two offices, in Lisbon and in Porto.",
    "Net income was $1.2 million, against $0.9 million a year earlier.",
    "Headcount grew to 240 employees by December 31, 2023.",
]


def _frozen_measured(text: str) -> tuple[FrozenVersion, int]:
    prepared = prepare_version("s1", text, "text/plain", "T", None, Limits())
    fields = json.loads(json.dumps(prepared.event_fields("2026-01-01T00:00:00.000000Z")))
    stored = fields["text"]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        spans = decode_spans(
            "s1",
            fields["version_hash"],
            stored,
            fields["heading_paths"],
            fields["spans"],
            fields["cells"],
        )
        frozen = FrozenVersion(stored, fields["version_hash"], {s.span_id: s for s in spans})
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    return frozen, held + len(stored)


@pytest.mark.parametrize("copies", [1, 300])
def test_a_frozen_versions_weight_is_within_a_third_of_its_measured_size(copies: int) -> None:
    frozen, measured = _frozen_measured(" ".join(SENTENCES * copies))
    assert 2 / 3 <= frozen.weight / measured <= 4 / 3


def test_the_verified_event_memo_stays_within_ten_megabytes() -> None:
    memo: OrderedDict[tuple[uuid.UUID, int], _Verified] = OrderedDict()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(5_000):
            memo[(uuid.uuid4(), i % 7 + 1)] = _Verified(
                os.urandom(32), os.urandom(32), os.urandom(32)
            )
        per_entry = (tracemalloc.get_traced_memory()[0] - before) / len(memo)
    finally:
        tracemalloc.stop()
    assert CACHE_SIZE * per_entry <= 10 * 1024 * 1024
