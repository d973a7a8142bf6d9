"""After-the-fact location: which sentence span inside a cited chunk each answer sentence uses.

Applications often cite whole retrieved chunks (``... [1]``). :func:`locate` narrows each
citation down to one span of the cited chunks, or says it cannot:

1. the citation markers (``[1]``, ``[1, 2]``, ``[1][2]``) are found and blanked, the answer is
   split into sentences by :func:`ledger.text.segment.split_sentences`, and each marker goes to
   the sentence that contains it, or else to the sentence before it (``Paris.[1] It`` cites
   from ``Paris.``); marker keys that name no chunk are ignored;
2. the spans of the cited chunks form a pool (:class:`ledger.attribution._evidence.EvidencePool`):
   each span's evidence is the sum of ``ln(N / df)`` over the sentence's content terms it holds
   (:func:`ledger.attribution._words.terms`: stop words removed, light stemming, numbers kept),
   so a word few spans share says more than one most spans share; the span with the most
   evidence is the candidate, and its posterior probability of being the source follows;
3. the candidate is returned when its **content-word recall** (the share of the sentence's
   distinct terms it holds) reaches ``threshold`` *and* its posterior reaches ``confidence``;
   else ``span_id`` is ``None``: failing to find is better than finding wrong. The first rule
   refuses a span that covers too little of the sentence, the second a span that another one
   explains nearly as well (an ambiguous pointer). Exact ties between different spans are
   therefore never located; spans with identical terms are one candidate, and the first in
   citation order (chunks in the order the sentence cites them, spans in chunk order) is named.

A sentence that cites no known chunk gets ``span_id``, ``score`` and ``confidence`` ``None``;
so does a cited sentence with no content word or whose chunks hold no span. A cited sentence
that is not located keeps the candidate's recall and posterior, to show how near it came.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ledger.attribution._evidence import EvidencePool
from ledger.attribution._markers import Marker, find_markers, mask_markers, strip_markers
from ledger.attribution._words import term_set
from ledger.attribution.ranker import Candidate
from ledger.errors import InvalidInput
from ledger.text.segment import split_sentences

DEFAULT_THRESHOLD = 0.25
"""Least content-word recall for a location (see ``docs/attribution.md`` for the data)."""
DEFAULT_CONFIDENCE = 0.8
"""Least posterior probability for a location: odds of at least 4 to 1 against every other span."""


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
    in order of first citation. ``score`` is the candidate span's content-word recall and
    ``confidence`` its posterior probability of being the source among the cited spans.
    """

    sentence: str
    start: int
    end: int
    markers: tuple[str, ...]
    span_id: str | None
    score: float | None
    confidence: float | None


def locate(
    answer: str,
    chunks: Mapping[str, Chunk],
    threshold: float = DEFAULT_THRESHOLD,
    *,
    confidence: float = DEFAULT_CONFIDENCE,
) -> list[Located]:
    """Locate every sentence of ``answer`` on a span of the chunks its markers cite.

    Raises :class:`~ledger.errors.InvalidInput` when ``threshold`` is not in ``(0, 1]`` or
    ``confidence`` not in ``[0, 1]`` (0 turns the ambiguity rule off).
    """
    if not 0 < threshold <= 1:
        raise InvalidInput(
            "threshold", "unit_interval", f"threshold must be in (0, 1]; got {threshold}"
        )
    if not 0 <= confidence <= 1:
        raise InvalidInput(
            "confidence", "unit_interval", f"confidence must be in [0, 1]; got {confidence}"
        )
    markers = find_markers(answer)
    ranges = split_sentences(mask_markers(answer, markers))
    if not ranges:
        return []
    owned = _assign(ranges, markers)
    pools: dict[tuple[str, ...], EvidencePool] = {}
    located: list[Located] = []
    for (first, last), mine in zip(ranges, owned, strict=True):
        start = min(first, mine[0].start) if mine else first
        end = max(last, mine[-1].end) if mine else last
        sentence = strip_markers(answer[start:end])
        keys = _known_keys(mine, chunks)
        if keys not in pools:
            pools[keys] = EvidencePool(span for key in keys for span in chunks[key].spans)
        found = pools[keys].best(term_set(sentence))
        if found is None:
            located.append(Located(sentence, start, end, keys, None, None, None))
            continue
        sure = found.recall >= threshold and found.posterior >= confidence
        span_id = found.span_id if sure else None
        located.append(Located(sentence, start, end, keys, span_id, found.recall, found.posterior))
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
