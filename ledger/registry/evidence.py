"""What the write side needs to know about spans it does not own: the resolver port.

The registry's read model answers these questions; the ledger only sees this protocol, so
the domain never imports a database library. The composition root wires the implementation
(``projections.span_resolver``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from ledger.access.attributes import SourceAccess

OPEN = SourceAccess()


@dataclass(frozen=True, slots=True)
class ResolvedSpan:
    """One span in one source version, as the registry knows it."""

    span_id: str
    source_id: str
    version: int
    version_hash: str
    text: str
    envelope: str | None
    effective_from: str
    effective_to: str | None
    withdrawn_at: str | None
    source_title: str = ""
    source_uri: str | None = None
    heading_path: tuple[str, ...] = ()
    start: int = 0
    end: int = 0
    version_title: str = ""
    """The title this version was added with (frozen; ``source_title`` follows new versions)."""
    authority: str = ""
    """The source's authority (from verified events when served by ``VerifiedSpans``)."""
    access: SourceAccess = OPEN
    """The source's access attributes (from verified events when served by
    :class:`~ledger.registry.verified_spans.VerifiedSpans`)."""

    @property
    def text_sha256(self) -> str:
        """``sha256:<hex>`` of the verbatim span text (what a sealed pool records)."""
        return "sha256:" + hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def in_force_at(self, moment: str) -> bool:
        """Tell whether this span's version was in force at ``moment`` (RFC 3339, UTC)."""
        return self.effective_from <= moment and (
            self.effective_to is None or moment < self.effective_to
        )


class SpanResolver(Protocol):
    """Looks spans up by id; a span id may name identical text in several versions."""

    def resolve(self, span_ids: Iterable[str]) -> Mapping[str, Sequence[ResolvedSpan]]:
        """Every known version of each span id (unknown ids are absent)."""


def pick_version(candidates: Sequence[ResolvedSpan], as_of: str) -> ResolvedSpan:
    """The candidate in force at ``as_of`` if there is one, else the newest."""
    for candidate in sorted(candidates, key=lambda c: c.version, reverse=True):
        if candidate.in_force_at(as_of):
            return candidate
    return max(candidates, key=lambda c: c.version)
