"""The client's retries, idempotency keys, typed problems and cursor lists, against
httpx.MockTransport: no service, every request the client sends is recorded."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from provledger import (
    AsyncClient,
    ClaimsRejected,
    Client,
    Conflict,
    Forbidden,
    InvalidInput,
    LedgerIntegrityError,
    NotFound,
    RetryPolicy,
    ServiceUnavailable,
    ServiceUnreachable,
    Unauthenticated,
)

BASE = "http://ledger.test"
PROBLEM = "application/problem+json"
SOURCE = {
    "source_id": "memo-1",
    "version": 1,
    "version_hash": "sha256:00",
    "span_count": 0,
    "position": 3,
    "created": True,
    "spans": [],
}
CLAIMS = [{"text": "Revenue rose 2.2%.", "bindings": [{"span_id": "sp_1"}]}]
COMMIT = {
    "receipt_id": "rcpt_1",
    "mode": "atomic",
    "committed": [],
    "quarantined": [],
    "rejected": [],
}


def problem(status: int, slug: str, **extra: Any) -> httpx.Response:
    body = {
        "type": f"https://provledger.dev/problems/{slug}",
        "title": slug,
        "status": status,
        "detail": f"{slug} detail",
        **extra,
    }
    headers = {"content-type": PROBLEM, **extra.pop("headers", {})}
    body.pop("headers", None)
    return httpx.Response(status, headers=headers, content=json.dumps(body).encode())


class Service:
    """Answers requests from a script of responses (or errors), recording each request."""

    def __init__(self, *answers: httpx.Response | Exception) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def client(service: Callable[[httpx.Request], httpx.Response], slept: list[float]) -> Client:
    return Client(
        BASE, "plk.app.secret", transport=httpx.MockTransport(service), sleep=slept.append
    )


def test_every_write_carries_an_idempotency_key_and_reads_none() -> None:
    service = Service(
        httpx.Response(201, json=SOURCE),
        httpx.Response(201, json=SOURCE),
        httpx.Response(200, json={"keys": []}),
    )
    with client(service, []) as ledger:
        ledger.register_source("memo-1", "Memo", "Revenue rose 2.2%.")
        ledger.register_source("memo-1", "Memo", "Revenue rose 2.2%.")
        ledger.public_keys()

    first, second, read = service.requests
    assert first.headers["Idempotency-Key"].startswith("pl-")
    assert first.headers["Idempotency-Key"] != second.headers["Idempotency-Key"]
    assert "Idempotency-Key" not in read.headers
    assert first.headers["Authorization"] == "Bearer plk.app.secret"


def test_a_connection_error_is_retried_with_the_same_key_and_growing_waits() -> None:
    refused = httpx.ConnectError("connection refused")
    service = Service(refused, refused, httpx.Response(201, json=COMMIT))
    slept: list[float] = []

    with client(service, slept) as ledger:
        result = ledger.commit_claims("rcpt_1", CLAIMS)

    assert result.receipt_id == "rcpt_1"
    keys = {request.headers["Idempotency-Key"] for request in service.requests}
    assert len(service.requests) == 3
    assert len(keys) == 1
    assert slept == [0.25, 0.5]
    assert json.loads(service.requests[0].content) == {"mode": "atomic", "claims": CLAIMS}


def test_retries_are_bounded_and_end_in_service_unreachable() -> None:
    service = Service(*[httpx.ConnectTimeout("timed out")] * 3)
    slept: list[float] = []
    ledger = Client(
        BASE,
        transport=httpx.MockTransport(service),
        retry=RetryPolicy(attempts=3, backoff=1.0, max_backoff=1.5),
        sleep=slept.append,
    )

    with pytest.raises(ServiceUnreachable) as raised:
        ledger.get_source("memo-1")

    assert len(service.requests) == 3
    assert slept == [1.0, 1.5]
    assert isinstance(raised.value.__cause__, httpx.ConnectTimeout)


def test_a_503_is_retried_after_the_wait_the_service_asks_for() -> None:
    service = Service(
        problem(503, "position-not-reached", headers={"Retry-After": "1"}),
        httpx.Response(200, json={"source_id": "memo-1", "title": "Memo"}),
    )
    slept: list[float] = []

    with client(service, slept) as ledger:
        source = ledger.get_source("memo-1")

    assert source.title == "Memo"
    assert slept == [1.0]


def test_a_503_that_lasts_past_the_retries_is_service_unavailable() -> None:
    service = Service(*[problem(503, "not-ready")] * 4)

    with client(service, []) as ledger, pytest.raises(ServiceUnavailable) as raised:
        ledger.get_receipt("rcpt_1")

    assert raised.value.status == 503
    assert raised.value.slug == "not-ready"
    assert len(service.requests) == 4


def test_a_retryable_conflict_is_sent_again_with_the_same_key() -> None:
    service = Service(
        problem(409, "conflict", retryable=True, headers={"Retry-After": "0"}),
        httpx.Response(201, json=COMMIT, headers={"Idempotency-Replayed": "true"}),
    )
    slept: list[float] = []

    with client(service, slept) as ledger:
        result = ledger.commit_claims("rcpt_1", CLAIMS, idempotency_key="answer-42")

    assert result.replayed is True
    assert [r.headers["Idempotency-Key"] for r in service.requests] == ["answer-42", "answer-42"]
    assert slept == [0.0]


def test_a_conflict_that_does_not_say_retry_is_raised_at_once() -> None:
    service = Service(problem(409, "conflict"))

    with client(service, []) as ledger, pytest.raises(Conflict) as raised:
        ledger.register_source("memo-1", "Memo", "Other text.")

    assert raised.value.retryable is False
    assert len(service.requests) == 1


@pytest.mark.parametrize(
    ("answer", "kind"),
    [
        (problem(401, "unauthenticated"), Unauthenticated),
        (problem(403, "forbidden"), Forbidden),
        (problem(404, "not-found"), NotFound),
        (problem(500, "ledger-integrity", reason="bad_signature"), LedgerIntegrityError),
    ],
)
def test_each_problem_is_raised_as_its_typed_exception(
    answer: httpx.Response, kind: type[Exception]
) -> None:
    with client(Service(answer), []) as ledger, pytest.raises(kind) as raised:
        ledger.get_claim("clm_1")

    assert raised.value.status == answer.status_code  # type: ignore[attr-defined]
    assert raised.value.type == answer.json()["type"]  # type: ignore[attr-defined]


def test_invalid_input_names_the_field_and_the_rule() -> None:
    errors = [
        {"field": "evidence", "rule": "exists", "message": "unknown span sp_9"},
        {"field": "route", "rule": "enum", "message": "unknown route"},
    ]
    service = Service(problem(422, "invalid-input", errors=errors))

    with client(service, []) as ledger, pytest.raises(InvalidInput) as raised:
        ledger.open_receipt(
            request="q",
            actor="u",
            purpose="p",
            policy_version="1",
            route="nowhere",
            model={"name": "m", "version": "1"},
            evidence=["sp_9"],
            inference_id="inf-7",
        )

    assert (raised.value.field, raised.value.rule) == ("evidence", "exists")
    assert raised.value.errors == errors
    assert "422 invalid-input" in str(raised.value)
    assert json.loads(service.requests[0].content)["inference_id"] == "inf-7"


def test_a_gate_refusal_is_claims_rejected_with_the_gates_result() -> None:
    errors = [{"field": "claims[0]", "rule": "number_mismatch", "message": "9% is not in it"}]
    refused = problem(422, "claims-rejected", errors=errors, rejected=[{"claim_id": "clm_1"}])
    service = Service(refused)

    with client(service, []) as ledger, pytest.raises(ClaimsRejected) as raised:
        ledger.commit_claims("rcpt_1", CLAIMS)

    assert raised.value.rule == "number_mismatch"
    assert raised.value.result["rejected"] == [{"claim_id": "clm_1"}]
    assert isinstance(raised.value, InvalidInput)
    assert len(service.requests) == 1  # a refusal is an answer, never retried


def test_a_cursor_list_is_followed_to_its_last_page() -> None:
    service = Service(
        httpx.Response(200, json={"items": [{"source_id": "a"}, {"source_id": "b"}], "next": "b"}),
        httpx.Response(200, json={"items": [{"source_id": "c"}], "next": None}),
    )

    with client(service, []) as ledger:
        ids = [source.source_id for source in ledger.sources(page_size=2)]

    assert ids == ["a", "b", "c"]
    assert [dict(r.url.params) for r in service.requests] == [
        {"limit": "2"},
        {"limit": "2", "after": "b"},
    ]
    assert {r.url.path for r in service.requests} == {"/v1/sources"}


def test_the_event_log_is_read_page_by_page_until_its_cursor_ends() -> None:
    event = {"originator_id": "x", "originator_version": 1, "topic": "t", "stored": {}}
    service = Service(
        httpx.Response(200, json={"items": [{**event, "notification_id": 8}], "next": "8"}),
        httpx.Response(200, json={"items": [{**event, "notification_id": 9}], "next": None}),
    )

    with client(service, []) as ledger:
        ids = [e.notification_id for e in ledger.events(after=7, page_size=1)]

    assert ids == [8, 9]
    assert [dict(r.url.params) for r in service.requests] == [
        {"limit": "1", "after": "7"},
        {"limit": "1", "after": "8"},
    ]


def test_span_lookups_send_the_documented_queries() -> None:
    span = {"span_id": "sp_1", "text": "Revenue rose 2.2%."}
    service = Service(
        httpx.Response(200, json={"items": [span]}),
        httpx.Response(200, json={"items": [span]}),
        httpx.Response(200, json={"items": [span]}),
    )

    with client(service, []) as ledger:
        found = ledger.search_spans("rose 2.2%", source_id="memo-1")
        ledger.spans("memo 1", 2, start=0, end=40, include_text=True)
        ledger.cells("memo-1", 1, "t1", row=0)

    assert found[0].span_id == "sp_1"
    search, ranged, cells = service.requests
    assert (search.method, search.url.path) == ("POST", "/v1/spans/search")
    assert json.loads(search.content) == {"quote": "rose 2.2%", "source_id": "memo-1"}
    assert ranged.url.raw_path == (
        b"/v1/sources/memo%201/versions/2/spans?start=0&end=40&include=text&limit=1000"
    )
    assert dict(cells.url.params) == {"table": "t1", "row": "0", "limit": "1000"}


def test_the_async_client_retries_and_pages_the_same_way() -> None:
    service = Service(
        httpx.ConnectError("refused"),
        httpx.Response(200, json={"items": [{"claim_id": "clm_1"}], "next": "clm_1"}),
        problem(503, "position-not-reached", headers={"Retry-After": "1"}),
        httpx.Response(200, json={"items": [{"claim_id": "clm_2"}], "next": None}),
        problem(404, "not-found"),
    )
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    async def run() -> list[str]:
        async with AsyncClient(
            BASE, "k", transport=httpx.MockTransport(service), sleep=sleep
        ) as ledger:
            ids = [claim.claim_id async for claim in ledger.claims(page_size=1)]
            with pytest.raises(NotFound):
                await ledger.get_claim("clm_9")
            return ids

    assert asyncio.run(run()) == ["clm_1", "clm_2"]
    assert slept == [0.25, 1.0]
