"""Errors the client raises: every problem+json answer (RFC 9457) as a typed exception.

:class:`ProblemError` carries the problem's ``type``, ``status``, ``title`` and ``detail``, and
the first broken rule's ``field`` and ``rule`` (all of them in ``errors``). A subclass per
problem lets a caller catch what it can handle, e.g. ``except ClaimsRejected``.
"""

from __future__ import annotations

from typing import Any

import httpx

PROBLEM_BASE = "https://provledger.dev/problems/"


class ProvledgerError(Exception):
    """Root of every error the client raises."""


class ServiceUnreachable(ProvledgerError):
    """The service could not be reached (connection refused, reset or timed out) on any of the
    bounded attempts; the last transport error is the ``__cause__``."""


class ProblemError(ProvledgerError):
    """The service answered with a problem (4xx or 5xx)."""

    def __init__(self, problem: dict[str, Any], status: int) -> None:
        self.problem = problem
        self.status = int(problem.get("status", status))
        self.type = str(problem.get("type", "about:blank"))
        self.title = str(problem.get("title", ""))
        self.detail = str(problem.get("detail", ""))
        errors = problem.get("errors")
        self.errors: list[dict[str, str]] = errors if isinstance(errors, list) else []
        first = self.errors[0] if self.errors else {}
        self.field: str | None = first.get("field")
        self.rule: str | None = first.get("rule")
        where = f" ({self.field}: {self.rule})" if self.field else ""
        super().__init__(f"{self.status} {self.slug}: {self.detail}{where}")

    @property
    def slug(self) -> str:
        """The problem type without its base, e.g. ``invalid-input``."""
        return self.type.removeprefix(PROBLEM_BASE)


class MalformedBody(ProblemError):
    """400 ``malformed-body``: the body was not one strict UTF-8 JSON value."""


class Unauthenticated(ProblemError):
    """401: no API key, or an unknown or revoked one."""


class Forbidden(ProblemError):
    """403: the API key lacks the scope the operation needs."""


class NotFound(ProblemError):
    """404: no such resource."""


class Conflict(ProblemError):
    """409: the request contradicts the ledger (``retryable`` when it met a concurrent write
    and the client's retries ran out)."""

    @property
    def retryable(self) -> bool:
        """Whether the service said the same request may succeed if sent again."""
        return self.problem.get("retryable") is True


class PayloadTooLarge(ProblemError):
    """413: the body or a text is over the service's limit."""


class UnsupportedMediaType(ProblemError):
    """415: the body was not sent as JSON."""


class InvalidInput(ProblemError):
    """422 ``invalid-input``: a field breaks a rule (``field``, ``rule``, ``errors``)."""


class ClaimsRejected(InvalidInput):
    """422 ``claims-rejected``: the commit gate refused the claims; nothing was committed.
    ``result`` is the gate's full answer (``rejected``, ``quarantined``, each claim's checks)."""

    @property
    def result(self) -> dict[str, Any]:
        """The gate's answer: the problem's members beyond the RFC 9457 ones."""
        return self.problem


class LossBoundary(InvalidInput):
    """422 ``loss-boundary``: a transformation's output dropped must-keep items of its inputs;
    nothing was recorded. ``dropped`` names each item: ``must_keep``, ``cue``, ``item`` (as
    the input writes it), ``span_id`` and ``input`` (its index in ``inputs``)."""

    @property
    def dropped(self) -> list[dict[str, Any]]:
        """Every must-keep item the output dropped."""
        found = self.problem.get("dropped")
        return found if isinstance(found, list) else []


class LedgerIntegrityError(ProblemError):
    """500 ``ledger-integrity`` or ``transparency-log-integrity``: data the service read back
    failed verification; ``reason`` and ``position`` name it. Never caused by the request."""

    @property
    def reason(self) -> str | None:
        """The verification reason code, e.g. ``bad_signature``."""
        reason = self.problem.get("reason")
        return reason if isinstance(reason, str) else None


class ServerError(ProblemError):
    """Another 5xx."""


class ServiceUnavailable(ProblemError):
    """503 (``position-not-reached``, ``not-ready``, ``read-models-ahead``) after the client's
    retries ran out."""


_BY_SLUG: dict[str, type[ProblemError]] = {
    "claims-rejected": ClaimsRejected,
    "loss-boundary": LossBoundary,
    "ledger-integrity": LedgerIntegrityError,
    "transparency-log-integrity": LedgerIntegrityError,
}
_BY_STATUS: dict[int, type[ProblemError]] = {
    400: MalformedBody,
    401: Unauthenticated,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    413: PayloadTooLarge,
    415: UnsupportedMediaType,
    422: InvalidInput,
    503: ServiceUnavailable,
}


def problem_from(response: httpx.Response) -> ProblemError:
    """The typed exception for an error response (a body that is not problem+json still
    gives one, with the text as its detail)."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        body = {"title": response.reason_phrase, "detail": response.text[:500]}
    body.setdefault("status", response.status_code)
    kind = _BY_SLUG.get(str(body.get("type", "")).removeprefix(PROBLEM_BASE))
    if kind is None:
        kind = _BY_STATUS.get(response.status_code)
    if kind is None:
        kind = ServerError if response.status_code >= 500 else ProblemError
    return kind(body, response.status_code)
