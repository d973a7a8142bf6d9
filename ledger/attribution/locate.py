"""After-the-fact location: which sentence span inside a cited chunk each answer sentence uses.

Applications often cite whole retrieved chunks (``... [1]``). :func:`locate` narrows each
citation down to one span of the cited chunks, or says it cannot:

1. the citation markers (``[1]``, ``[1, 2]``, ``[1][2]``) are found and blanked, the answer is
   split into sentences by :func:`ledger.text.segment.split_sentences`, and each marker goes to
   the sentence that contains it, or else to the sentence before it (``Paris.[1] It`` cites
   from ``Paris.``); marker keys that name no chunk are ignored;
2. each span of the cited chunks is scored by **content-word recall**: the share of the
   sentence's distinct content terms (:func:`ledger.attribution._words.terms`: stop words
   removed, light stemming, numbers kept) that occur in the span's text or envelope;
3. the best span is returned when its score reaches ``threshold``, else ``span_id`` is
   ``None``: failing to find is better than finding wrong. Ties go to the span with the larger
   share of its own terms in the sentence (the more focused span), then to citation order
   (chunks in the order the sentence cites them, spans in chunk order).

A sentence that cites no known chunk gets ``span_id`` and ``score`` ``None``; so does a cited
sentence with no content word or whose chunks hold no span. A cited sentence whose best span
stays below the threshold keeps that best score, to show how near it came.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ledger.attribution._markers import Marker, find_markers, mask_markers, strip_markers
from ledger.attribution._words import term_set
from ledger.attribution.ranker import Candidate
from ledger.errors import InvalidInput
from ledger.text.segment import split_sentences

DEFAULT_THRESHOLD = 0.4
"""Least content-word recall for a location (see ``docs/attribution.md`` for the data)."""


@dataclass(frozen=True, slots=True)
class Chunk:
    """A passage an application cited as a whole, as the spans inside it, in order."""

    ref: str
    spans: tuple[Candidate, ...]


@dataclass(frozen=True, slots=True)
class Located:
    """One answer sentence and the span it was located on, if any.

    ``start`` and ``end`` are offsets into the answer, covering the sentence and its markers;
    ``sentence`` is that text without the markers; ``markers`` are the chunk keys it cites,
    in order of first citation.
    """

    sentence: str
    start: int
    end: int
    markers: tuple[str, ...]
    span_id: str | None
    score: float | None


def locate(
    answer: str, chunks: Mapping[str, Chunk], threshold: float = DEFAULT_THRESHOLD
) -> list[Located]:
    """Locate every sentence of ``answer`` on a span of the chunks its markers cite.

    Raises :class:`~ledger.errors.InvalidInput` when ``threshold`` is not in ``(0, 1]``.
    """
    if not 0 < threshold <= 1:
        raise InvalidInput(
            "threshold", "unit_interval", f"threshold must be in (0, 1]; got {threshold}"
        )
    markers = find_markers(answer)
    ranges = split_sentences(mask_markers(answer, markers))
    if not ranges:
        return []
    owned = _assign(ranges, markers)
    located: list[Located] = []
    for (first, last), mine in zip(ranges, owned, strict=True):
        start = min(first, mine[0].start) if mine else first
        end = max(last, mine[-1].end) if mine else last
        sentence = strip_markers(answer[start:end])
        keys = _known_keys(mine, chunks)
        span_id, score = _best_span(sentence, [chunks[key] for key in keys], threshold)
        located.append(Located(sentence, start, end, keys, span_id, score))
    return located


def _assign(ranges: list[tuple[int, int]], markers: list[Marker]) -> list[list[Marker]]:
    """Each sentence's markers: those inside it, or after it and before the next sentence.

    Markers before the first sentence go to the first sentence.
    """
    owned: list[list[Marker]] = [[] for _ in ranges]
    index = 0
    for marker in markers:
        while index + 1 < len(ranges) and ranges[index + 1][0] <= marker.start:
            index += 1
        owned[index].append(marker)
    return owned


def _known_keys(markers: list[Marker], chunks: Mapping[str, Chunk]) -> tuple[str, ...]:
    """The keys of ``markers`` that name a chunk, each once, in order of first citation."""
    keys: dict[str, None] = {}
    for marker in markers:
        for key in marker.keys:
            if key in chunks:
                keys.setdefault(key)
    return tuple(keys)


def _best_span(
    sentence: str, cited: list[Chunk], threshold: float
) -> tuple[str | None, float | None]:
    """The best span of ``cited`` for ``sentence`` and its score, by the module's rules."""
    wanted = term_set(sentence)
    if not wanted:
        return None, None
    best: tuple[float, float, int] | None = None
    best_id: str | None = None
    order = 0
    seen: set[str] = set()
    for chunk in cited:
        for span in chunk.spans:
            if span.span_id in seen:
                continue
            seen.add(span.span_id)
            have = term_set(span.text) | (term_set(span.envelope) if span.envelope else set())
            shared = len(wanted & have)
            key = (shared / len(wanted), shared / len(have) if have else 0.0, -order)
            order += 1
            if best is None or key > best:
                best, best_id = key, span.span_id
    if best is None:
        return None, None
    if best[0] >= threshold:
        return best_id, best[0]
    return None, best[0]
