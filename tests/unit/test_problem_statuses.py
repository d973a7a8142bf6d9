"""A concurrent write is a 409 a client may retry; any other conflict is not."""

from __future__ import annotations

import json

from api.errors import ledger_problem
from ledger.errors import ConcurrentWrite, Conflict


def test_a_concurrent_write_is_a_retryable_409_with_retry_after() -> None:
    response = ledger_problem(ConcurrentWrite("receipt rcpt_1 is being written by others; retry"))

    body = json.loads(response.body)
    assert response.status_code == 409
    assert response.headers["Retry-After"] == "0"
    assert body["type"] == "https://provledger.dev/problems/conflict"
    assert body["retryable"] is True
    assert body["detail"] == "receipt rcpt_1 is being written by others; retry"


def test_a_conflict_with_the_ledgers_content_is_not_retryable() -> None:
    response = ledger_problem(Conflict("source 'memo-1' is already withdrawn"))

    body = json.loads(response.body)
    assert response.status_code == 409
    assert "retryable" not in body
    assert "Retry-After" not in response.headers
