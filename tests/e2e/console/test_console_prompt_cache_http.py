"""The console's prompt-cache page: each stable prefix's read/write ratio against its
break-even, and the totals (both backends)."""

from __future__ import annotations

import re

from tests.e2e.console.conftest import HTML, Reader


def _usage(reader: Reader, receipt_id: str, write: int, read: int) -> None:
    body = {
        "input_tokens": 50,
        "cache_creation_input_tokens": write,
        "cache_read_input_tokens": read,
    }
    response = reader.client.post(
        f"/v1/receipts/{receipt_id}/usage", json=body, headers=reader.admin
    )
    assert response.status_code == 201, response.text


def _prefix(reader: Reader, receipt_id: str) -> str:
    packet = reader.client.get(f"/v1/receipts/{receipt_id}/context", headers=reader.admin)
    return str(packet.json()["prefix_sha256"])


def test_the_page_says_no_usage_was_recorded_before_any_was(reader: Reader) -> None:
    page = reader.client.get("/console/prompt-cache", headers=HTML)

    assert page.status_code == 200, page.text
    assert "No usage recorded yet." in page.text
    assert '<a href="/console/prompt-cache" aria-current="page">Prompt cache</a>' in page.text


def test_each_prefix_shows_its_ratio_and_whether_it_pays_back_its_writes(reader: Reader) -> None:
    cached, cold = reader.seeded.receipt_id, reader.seeded.hostile_receipt_id
    _usage(reader, cached, 4000, 0)
    _usage(reader, cached, 0, 4000)
    _usage(reader, cached, 0, 4000)  # two reads a write: pays back
    _usage(reader, cold, 4000, 0)
    _usage(reader, cold, 0, 1000)  # a quarter read a write: below 0.28

    page = reader.client.get("/console/prompt-cache", headers=HTML).text

    rows = re.findall(r'<tr role="row" class="prefix-([a-z-]+)">(.*?)</tr>', page, re.S)
    by_prefix = {re.search(r'title="([^"]+)"', row).group(1): (kind, row) for kind, row in rows}  # type: ignore[union-attr]
    kind, row = by_prefix[_prefix(reader, cached)]
    assert kind == "pays-back"
    assert (
        '<td role="cell" data-label="Read/write" class="ratio">2.00: pays back its writes</td>'
        in row
    )
    kind, row = by_prefix[_prefix(reader, cold)]
    assert kind == "below-break-even"
    assert "0.25: below break-even" in row
    assert '<dd class="ratio-all">1.12 (pays back its writes)</dd>' in page
    assert "0.28 times its cache-write tokens" in page
