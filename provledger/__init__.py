"""The Python client of a provledger service.

    from provledger import Client, verify_bundle

``Client`` and ``AsyncClient`` call the REST API (httpx) with typed answers, an automatic
``Idempotency-Key`` on every write, bounded retries and problem+json errors as exceptions
(:mod:`provledger.errors`); :func:`verify_envelope` and :func:`verify_bundle` check what the
service signed with no server at all. See docs/client.md.
"""

from __future__ import annotations

from provledger._async import AsyncClient
from provledger._operations import Page
from provledger._sync import Client
from provledger._transport import RetryPolicy
from provledger.errors import (
    ClaimsRejected,
    Conflict,
    Forbidden,
    InvalidInput,
    LedgerIntegrityError,
    LossBoundary,
    MalformedBody,
    NotFound,
    PayloadTooLarge,
    ProblemError,
    ProvledgerError,
    ServerError,
    ServiceUnavailable,
    ServiceUnreachable,
    Unauthenticated,
    UnsupportedMediaType,
)
from provledger.models import (
    AffectedReceipt,
    Claim,
    CommitResult,
    Event,
    Memory,
    Outcome,
    Receipt,
    Retrieval,
    Source,
    SourceVersion,
    Span,
    Transformation,
    VersionChange,
)
from provledger.verify import (
    BundleVerdict,
    EnvelopeVerdict,
    load_keyring,
    verify_bundle,
    verify_envelope,
)

__all__ = [
    "AffectedReceipt",
    "AsyncClient",
    "BundleVerdict",
    "Claim",
    "ClaimsRejected",
    "Client",
    "CommitResult",
    "Conflict",
    "EnvelopeVerdict",
    "Event",
    "Forbidden",
    "InvalidInput",
    "LedgerIntegrityError",
    "LossBoundary",
    "MalformedBody",
    "Memory",
    "NotFound",
    "Outcome",
    "Page",
    "PayloadTooLarge",
    "ProblemError",
    "ProvledgerError",
    "Receipt",
    "Retrieval",
    "RetryPolicy",
    "ServerError",
    "ServiceUnavailable",
    "ServiceUnreachable",
    "Source",
    "SourceVersion",
    "Span",
    "Transformation",
    "Unauthenticated",
    "UnsupportedMediaType",
    "VersionChange",
    "load_keyring",
    "verify_bundle",
    "verify_envelope",
]
