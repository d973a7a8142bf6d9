"""Locating the spans behind an answer's cited chunks for a caller: each chunk read as its
spans (by id, or a source version's character range), a source the caller's API key may not
see treated as one the ledger does not hold, then :func:`ledger.attribution.locate.locate`.

The desk reads through ports the composition root plugs in: the verified span resolver, the
read model's spans inside a range, and the key's sight (``ledger/receipts/sight.py``
``KeySight.seer``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from ledger.access.attributes import Pins
from ledger.attribution.locate import Chunk, Located, locate
from ledger.attribution.ranker import Candidate
from ledger.errors import InvalidInput


class ChunkSpan(Protocol):
    """A span of a cited chunk, as the registry serves it."""

    @property
    def span_id(self) -> str:
        """The span's id."""

    @property
    def text(self) -> str:
        """Its verbatim text."""

    @property
    def envelope(self) -> str | None:
        """A table cell's envelope (None for prose)."""

    @property
    def source_id(self) -> str:
        """Its source."""

    @property
    def version(self) -> int:
        """Its source version."""


class SpanLookup(Protocol):
    """Spans by id from verified events (``ledger.registry.verified_spans.VerifiedSpans``)."""

    def resolve(self, span_ids: Iterable[str]) -> Mapping[str, Sequence[ChunkSpan]]:
        """Every version of each known span id."""


RangeReader = Callable[[str, int, int, int], Sequence[ChunkSpan]]
"""The top-level spans of a source version inside ``[start, end)``, in text order."""

Sight = Callable[[Pins | None], Callable[[str], bool]]
"""For a key's pins, whether it may see a source (the policy in force read once)."""


@dataclass(frozen=True)
class ChunkRequest:
    """A cited chunk: its span ids, or a source version and a character range."""

    span_ids: tuple[str, ...] | None = None
    source_id: str | None = None
    version: int | None = None
    start: int | None = None
    end: int | None = None


@dataclass(frozen=True)
class LocatedSentence:
    """An answer sentence located (or not), with the source version of its span."""

    located: Located
    source: tuple[str, int] | None


class LocateDesk:
    """Locates answer sentences on the spans of their cited chunks (see the module)."""

    def __init__(self, spans: SpanLookup, ranges: RangeReader, sight: Sight) -> None:
        self.spans = spans
        self.ranges = ranges
        self.sight = sight

    def locate(
        self,
        answer: str,
        chunks: Mapping[str, ChunkRequest],
        threshold: float,
        confidence: float,
        pins: Pins | None,
    ) -> list[LocatedSentence]:
        """Each sentence of ``answer`` with the span it was located on, if any. To a key with
        ``pins`` a source it may not see does not exist: its span ids are unknown (422
        ``chunks.<key>.span_ids`` / ``exists``), its ranges empty."""
        seen = self.sight(pins)
        read: dict[str, Chunk] = {}
        sources: dict[str, tuple[str, int]] = {}
        for key, chunk in chunks.items():
            found = self._spans(key, chunk, seen)
            read[key] = Chunk(key, tuple(Candidate(s.span_id, s.text, s.envelope) for s in found))
            sources.update({s.span_id: (s.source_id, s.version) for s in found})
        return [
            LocatedSentence(item, sources[item.span_id] if item.span_id else None)
            for item in locate(answer, read, threshold, confidence=confidence)
        ]

    def _spans(
        self, key: str, chunk: ChunkRequest, seen: Callable[[str], bool]
    ) -> Sequence[ChunkSpan]:
        if chunk.span_ids is not None:
            resolved = {
                span_id: versions
                for span_id, versions in self.spans.resolve(chunk.span_ids).items()
                if seen(versions[0].source_id)
            }
            missing = [span_id for span_id in chunk.span_ids if span_id not in resolved]
            if missing:
                raise InvalidInput(
                    f"chunks.{key}.span_ids", "exists", f"unknown spans: {', '.join(missing[:5])}"
                )
            return [max(resolved[span_id], key=lambda s: s.version) for span_id in chunk.span_ids]
        assert chunk.source_id is not None
        assert chunk.version is not None
        assert chunk.start is not None
        assert chunk.end is not None
        if not seen(chunk.source_id):
            return []
        return self.ranges(chunk.source_id, chunk.version, chunk.start, chunk.end)
