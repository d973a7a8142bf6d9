"""What the gate evaluations share: a case, the shared data directory, span facts."""

from __future__ import annotations

import hashlib
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
    half: str = "tune"
    """``tune`` or ``check``: the half of its data set's documents (:func:`half_of`)."""


def data_dir(explicit: str | None = None) -> Path | None:
    """The shared data directory, or ``None`` when it is absent."""
    for candidate in (explicit, os.environ.get("PROVLEDGER_SHARED_DATA")):
        if candidate:
            return Path(candidate) if Path(candidate).is_dir() else None
    default = REPO / ".." / "shared" / "data"
    return default if default.is_dir() else None


SPLIT_SALT = "provledger-gate-eval-v1"
"""Fixed salt of the document split; changing it reshuffles the halves."""

HALVES = ("tune", "check")
"""The tuning half (rules may be fitted to it) and the check half (only ever reported)."""


def half_of(document_key: str) -> str:
    """The half a document belongs to: ``tune`` or ``check``, fixed by its key.

    Cases are split by document, never by claim, so that no document lends words to both
    halves: a rule fitted to the tuning half's documents is measured on documents it has not
    seen. The key is the data set's own document id (WiCE claim id's article, the TAT-QA
    table uid, the SummEdits document text) and the split is the low bit of a salted SHA-256.
    """
    digest = hashlib.sha256(f"{SPLIT_SALT}:{document_key}".encode()).digest()
    return HALVES[digest[0] & 1]


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
