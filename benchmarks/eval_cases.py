"""What the gate evaluations share: a case, the shared data directory, span facts."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ledger.gate import Binding, ClaimDraft, SpanFacts
from ledger.text.segment import split_sentences

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Case:
    """One claim with the facts about the spans it cites."""

    category: str
    claim: ClaimDraft
    spans: dict[str, SpanFacts]


def data_dir(explicit: str | None = None) -> Path | None:
    """The shared data directory, or ``None`` when it is absent."""
    for candidate in (explicit, os.environ.get("PROVLEDGER_SHARED_DATA")):
        if candidate:
            return Path(candidate) if Path(candidate).is_dir() else None
    default = REPO / ".." / "shared" / "data"
    return default if default.is_dir() else None


def span(span_id: str, text: str, envelope: str | None = None) -> SpanFacts:
    """Facts of a span that exists, is in the pool and in force."""
    return SpanFacts(span_id, True, True, True, False, text, envelope)


def sentences_of(text: str) -> list[str]:
    """Sentences of ``text`` by the ledger's own segmenter."""
    return [text[s:e] for s, e in split_sentences(text)]


def make_case(category: str, text: str, texts: list[str], **claim: object) -> Case:
    spans = {f"s{i}": span(f"s{i}", t) for i, t in enumerate(texts)}
    bindings = tuple(Binding(key) for key in spans)
    return Case(category, ClaimDraft(text, bindings=bindings, **claim), spans)  # type: ignore[arg-type]
