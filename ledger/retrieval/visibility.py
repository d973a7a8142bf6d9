"""Who asks, and which source versions they may see: the visibility decision is injected.

Retrieval does not decide entitlements itself. It takes a :class:`SourceFilter` for the
request and asks it about each candidate's source version before fusion; a refusal comes back
as a safe code (``entitlement-group-mismatch``), never as the rule's content, and is counted in
the response's ``exclusions``. ``POST /v1/retrieve`` passes the access policy's filter
(``ledger.access.source_filter.PolicyFilter``) followed by the injected one (default
:class:`AllowAll`) as a :class:`FirstRefusal`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ledger.access.attributes import Pins, Principal

_CODE = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")


class SourceFilter(Protocol):
    """Decides whether one source version may be served to the request's principal."""

    def exclusion(self, source_id: str, version: int) -> str | None:
        """``None`` to serve, or the safe exclusion code that withholds the version."""


@dataclass(frozen=True)
class AllowAll:
    """The filter of a ledger with no entitlement policy: every version is visible."""

    def exclusion(self, source_id: str, version: int) -> str | None:
        """Always ``None``."""
        return None


@dataclass(frozen=True)
class FirstRefusal:
    """Asks each filter in turn; the first code refuses (the entitlement policy, then an
    injected filter)."""

    filters: tuple[SourceFilter, ...]

    def exclusion(self, source_id: str, version: int) -> str | None:
        """The first filter's code that is not ``None``."""
        for inner in self.filters:
            code = inner.exclusion(source_id, version)
            if code is not None:
                return code
        return None


@dataclass(frozen=True)
class RetrievalEntitlement:
    """How a retrieval is decided: its source filter (the pins' sight first, then the policy
    in force for the request's principal), the policy's version and the source filter the
    request gave, less the sources the key may not see."""

    filter: SourceFilter
    policy_version: str
    source_ids: tuple[str, ...] | None


class Entitlements(Protocol):
    """Decides a retrieval's entitlements for an API key's pins: the principal bounded by the
    pins (403 ``principal-not-pinned`` before anything is read), the policy in force or the
    one the request names, the sources the key may see (``ledger/receipts/sight.py``
    ``KeySight.for_retrieval``, plugged in by the composition root)."""

    def __call__(
        self,
        pins: Pins | None,
        principal: Principal,
        policy_version: str | None,
        source_ids: Sequence[str] | None,
    ) -> RetrievalEntitlement:
        """The retrieval's source filter, policy version and source ids."""


FilterFactory = Callable[[Principal], SourceFilter]
"""Builds the filter for one request's principal (the composition root supplies it)."""


def allow_all(principal: Principal) -> SourceFilter:
    """The default :data:`FilterFactory`."""
    return AllowAll()


@dataclass
class CachedFilter:
    """Asks ``inner`` once per source version within one request; checks the codes' shape."""

    inner: SourceFilter
    _seen: dict[tuple[str, int], str | None] = field(default_factory=dict)

    def exclusion(self, source_id: str, version: int) -> str | None:
        """The inner filter's answer, remembered."""
        key = (source_id, version)
        if key not in self._seen:
            code = self.inner.exclusion(source_id, version)
            if code is not None and not _CODE.match(code):
                code = "excluded"  # a code that could carry more than a code is not echoed
            self._seen[key] = code
        return self._seen[key]
