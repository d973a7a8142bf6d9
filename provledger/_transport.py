"""What the sync and async clients share: one request as data, the retry decision, and the
answer's parsing. Neither client decides anything the other does not.

Every write (any method but GET) carries an ``Idempotency-Key``, made once per call and sent
again on each retry, so the service can answer a retried write with the first answer instead
of writing twice. Retries are bounded (``RetryPolicy.attempts``) with exponential backoff, and
happen only when sending the same request again is safe and may succeed: the service could not
be reached, it answered 503 (not ready, or a read-your-writes wait that ran out), or 409 with
``retryable: true`` (a concurrent write to the same record; nothing was written)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import httpx

from provledger.errors import problem_from

T = TypeVar("T")
IDEMPOTENCY_HEADER = "Idempotency-Key"


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to retry: ``attempts`` tries in all, waiting ``backoff``
    seconds, doubling up to ``max_backoff`` (a ``Retry-After`` from the service wins, capped
    at ``max_backoff``)."""

    attempts: int = 4
    backoff: float = 0.25
    max_backoff: float = 8.0

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before try ``attempt + 1`` (``attempt`` counts from 0)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_backoff)
        return float(min(self.backoff * 2**attempt, self.max_backoff))


@dataclass(frozen=True)
class Request(Generic[T]):
    """One API call as data, with how to read its successful answer."""

    method: str
    path: str
    parse: Callable[[httpx.Response], T]
    params: dict[str, Any] | None = None
    json: Any = None
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def writes(self) -> bool:
        """Whether the call may change the ledger (and so carries an Idempotency-Key)."""
        return self.method.upper() != "GET"

    def prepared_headers(self) -> dict[str, str]:
        """The call's headers, with an Idempotency-Key on a write that has none yet."""
        headers = dict(self.headers)
        if self.writes and IDEMPOTENCY_HEADER not in headers:
            headers[IDEMPOTENCY_HEADER] = new_idempotency_key()
        return headers

    def query(self) -> dict[str, Any] | None:
        """The query parameters without the ones left unset."""
        if self.params is None:
            return None
        return {name: value for name, value in self.params.items() if value is not None}


def new_idempotency_key() -> str:
    """A fresh key the service accepts (``[A-Za-z0-9._:-]{1,128}``)."""
    return f"pl-{uuid.uuid4().hex}"


def retry_after(response: httpx.Response, attempt: int, policy: RetryPolicy) -> float | None:
    """Seconds to wait before sending the same request again, or None: answer as it is."""
    if attempt + 1 >= policy.attempts:
        return None
    if response.status_code == 503:
        return policy.delay(attempt, _retry_after_header(response))
    if response.status_code == 409 and _says_retryable(response):
        return policy.delay(attempt, _retry_after_header(response))
    return None


def transport_retry(attempt: int, policy: RetryPolicy) -> float | None:
    """Seconds to wait after a connection error before try ``attempt + 1``, or None: give up."""
    if attempt + 1 >= policy.attempts:
        return None
    return policy.delay(attempt)


def answer(request: Request[T], response: httpx.Response) -> T:
    """The parsed answer of a 2xx response; a typed :class:`ProblemError` for any other."""
    if not response.is_success:
        raise problem_from(response)
    return request.parse(response)


def _retry_after_header(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    try:
        return None if value is None else float(value)
    except ValueError:
        return None


def _says_retryable(response: httpx.Response) -> bool:
    try:
        body = response.json()
    except ValueError:
        return False
    return isinstance(body, dict) and body.get("retryable") is True
