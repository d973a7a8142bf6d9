"""The documents a scale ledger is built from: the dev data's own, then generated ones.

First come the real documents of the shared dev splits, as an application would register
them: every WiCE article, every TAT-QA report (its paragraphs and its table, split into blocks
as :func:`benchmarks.tatqa_rest.source_body` does) and every SummEdits document. Past them,
document ``i`` is generated from them with ``random.Random(i)``: runs of consecutive sentences
taken from several real documents (so a paragraph reads as prose on one subject), every figure
in them changed (so no two documents state the same numbers), under numbered headings, and in
about a third of the documents a TAT-QA table with changed figures. The same ``i`` always gives
the same document, so a build resumes where it stopped. Only the dev splits are read.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from benchmarks.tatqa_cases import tatqa
from benchmarks.tatqa_rest import source_body

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])")
_FIGURE = re.compile(r"\d+(?:[.,]\d+)*")
_SUMMEDITS = ("news", "podcast", "sales_call", "samsum")
TABLE_SHARE = 0.35
"""Share of generated documents that carry a table."""


@dataclass(frozen=True)
class Document:
    """One source to ingest: its id, title, text (markdown) and optional tables."""

    source_id: str
    title: str
    text: str
    tables: list[dict[str, Any]] | None = None
    authority: str = "source_of_record"


class Corpus:
    """The real documents of the dev data at ``root``, then generated ones, by index."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @cached_property
    def real(self) -> list[Document]:
        """Every WiCE article, TAT-QA report and SummEdits document, once each."""
        documents: dict[str, Document] = {}
        wice = self.root / "wice" / "entailment_retrieval" / "claim" / "dev.jsonl"
        for line in wice.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            sentences = [str(s).strip() for s in json.loads(line)["evidence"] if str(s).strip()]
            key = hashlib.sha256("\n".join(sentences).encode()).hexdigest()[:12]
            text = "\n\n".join(" ".join(sentences[i : i + 5]) for i in range(0, len(sentences), 5))
            documents.setdefault(f"wice-{key}", Document(f"wice-{key}", "WiCE article", text))
        for context in tatqa(self.root):
            body = source_body(context, with_caption=True)
            documents[body["source_id"]] = Document(
                body["source_id"], body["title"], body["text"], body["tables"], "derived"
            )
        for domain in _SUMMEDITS:
            rows = json.loads((self.root / "summedits" / f"summedits_{domain}.json").read_text())
            for row in rows:
                text = str(row["doc"]).strip()
                key = hashlib.sha256(text.encode()).hexdigest()[:12]
                documents.setdefault(
                    f"summedits-{key}", Document(f"summedits-{key}", f"{domain} document", text)
                )
        return list(documents.values())

    @cached_property
    def _passages(self) -> list[list[str]]:
        """The sentences of every real document's paragraphs (paragraphs of three or more)."""
        passages = []
        for document in self.real:
            for paragraph in document.text.split("\n\n"):
                sentences = [s for s in _SENTENCE_END.split(paragraph.strip()) if s]
                if len(sentences) >= 3:
                    passages.append(sentences)
        return passages

    @cached_property
    def _tables(self) -> list[list[dict[str, Any]]]:
        return [d.tables for d in self.real if d.tables]

    def queries(self) -> list[str]:
        """What users ask: every WiCE claim and TAT-QA question of the dev splits."""
        wice = self.root / "wice" / "entailment_retrieval" / "claim" / "dev.jsonl"
        asked = [
            str(json.loads(line)["claim"])
            for line in wice.read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        for context in tatqa(self.root):
            questions: list[dict[str, Any]] = context["questions"]  # type: ignore[assignment]
            asked += [str(q["question"]) for q in questions]
        return asked

    def document(self, i: int) -> Document:
        """Document ``i``: a real one while they last, then a generated one."""
        if i < len(self.real):
            return self.real[i]
        return self.generated(i)

    def generated(self, i: int) -> Document:
        """A generated report: four to eight sections of prose, a third with a table."""
        rng = random.Random(i)
        sections = []
        for n in range(1, rng.randint(4, 8) + 1):
            passage = rng.choice(self._passages)
            start = rng.randrange(len(passage))
            run = passage[start : start + rng.randint(3, 8)] or passage[:3]
            prose = " ".join(_figures_changed(s, rng) for s in run)
            sections.append(f"## Section {n}: {_heading(run[0])}\n\n{prose}")
        tables = None
        if rng.random() < TABLE_SHARE:
            tables = [_table_changed(t, rng) for t in rng.choice(self._tables)]
        return Document(f"gen-{i:07d}", f"Generated report {i}", "\n\n".join(sections), tables)


def _heading(sentence: str) -> str:
    words = re.findall(r"[A-Za-z][A-Za-z'-]+", sentence)[:5]
    return " ".join(words) or "Notes"


def _figures_changed(text: str, rng: random.Random) -> str:
    """``text`` with every figure replaced by another of the same shape."""

    def change(match: re.Match[str]) -> str:
        return re.sub(r"\d", lambda _: str(rng.randrange(10)), match.group(0))

    return _FIGURE.sub(change, text)


def _table_changed(table: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    rows = [[_figures_changed(str(cell), rng) for cell in row] for row in table["rows"]]
    return {**table, "rows": rows}
