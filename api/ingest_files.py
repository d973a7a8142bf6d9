"""Ingest files and folders into the registry, locally or through a running service."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import httpx

from ledger.errors import LedgerError
from ledger.registry.source_desk import BatchItem, SourceDesk, SourceDraft

MEDIA_TYPES = {
    ".txt": "text/plain",
    ".md": "text/markdown",
    ".html": "text/html",
    ".htm": "text/html",
}
_UNSAFE = re.compile(r"[^A-Za-z0-9._:-]+")


@dataclass(frozen=True)
class Document:
    """One file to ingest."""

    path: Path
    source_id: str
    media_type: str


def find_documents(paths: list[Path], skipped: list[Path] | None = None) -> list[Document]:
    """Expand files and folders into documents; the source id is the path under its root.
    Files of a type not in :data:`MEDIA_TYPES` are left out and appended to ``skipped``."""
    documents: list[Document] = []
    for root in paths:
        files: Iterator[Path] = iter([root]) if root.is_file() else root.rglob("*")
        for path in sorted(files):
            if not path.is_file():
                continue
            media_type = MEDIA_TYPES.get(path.suffix.lower())
            if media_type is None:
                if skipped is not None:
                    skipped.append(path)
                continue
            relative = path.name if root.is_file() else str(path.relative_to(root))
            source_id = _UNSAFE.sub("-", relative).strip("-")[:128] or "document"
            documents.append(Document(path, source_id, media_type))
    return documents


def describe_skipped(skipped: list[Path]) -> str:
    """One line naming how many files were skipped, by extension, and what is taken."""
    kinds = Counter(path.suffix.lower() or "(no extension)" for path in skipped)
    by_kind = ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
    taken = ", ".join(sorted(MEDIA_TYPES))
    noun = "file" if len(skipped) == 1 else "files"
    return f"skipped {len(skipped)} unsupported {noun} ({by_kind}); ingest takes {taken}"


class Sink(Protocol):
    """Where documents go: the local ledger or a remote service."""

    def put_many(self, batch: list[tuple[Document, str]]) -> list[tuple[str, str]]:
        """Ingest documents; return ``(outcome, detail)`` for each, in order.

        Outcomes: ``created``, ``new-version``, ``unchanged`` or ``failed``.
        """


class LocalSink:
    """Writes straight into the ledger in the data dir, one transaction per batch."""

    def __init__(self, sources: SourceDesk, actor: str) -> None:
        self.sources = sources
        self.actor = actor

    def put_many(self, batch: list[tuple[Document, str]]) -> list[tuple[str, str]]:
        """Register new documents and add versions for changed ones."""
        items = [
            BatchItem(
                document.source_id,
                SourceDraft(text, document.media_type, document.path.stem),
                uri=document.path.resolve().as_uri(),
            )
            for document, text in batch
        ]
        return [
            (outcome.status, outcome.detail)
            for outcome in self.sources.ingest_batch(items, self.actor)
        ]


class RemoteSink:
    """Posts to a running service."""

    def __init__(self, url: str, api_key: str) -> None:
        self.client = httpx.Client(
            base_url=url.rstrip("/"), headers={"Authorization": f"Bearer {api_key}"}, timeout=60
        )

    def put_many(self, batch: list[tuple[Document, str]]) -> list[tuple[str, str]]:
        """POST each document in turn."""
        results: list[tuple[str, str]] = []
        for document, text in batch:
            try:
                results.append((self._put(document, text), ""))
            except (LedgerError, httpx.HTTPError) as exc:
                results.append(("failed", str(exc)))
        return results

    def _put(self, document: Document, text: str) -> str:
        """POST the source; on 409 POST a new version."""
        body: dict[str, Any] = {
            "source_id": document.source_id,
            "title": document.path.stem,
            "text": text,
            "media_type": document.media_type,
            "authority": "source_of_record",
        }
        response = self.client.post("/v1/sources", params={"include_spans": "false"}, json=body)
        if response.status_code == 409:
            del body["source_id"], body["authority"]
            response = self.client.post(
                f"/v1/sources/{document.source_id}/versions",
                params={"include_spans": "false"},
                json=body,
            )
            _raise_for_problem(response)
            return "new-version" if response.status_code == 201 else "unchanged"
        _raise_for_problem(response)
        return "created" if response.status_code == 201 else "unchanged"


def _raise_for_problem(response: httpx.Response) -> None:
    if response.is_success:
        return
    try:
        detail = response.json().get("detail", response.text)
    except ValueError:
        detail = response.text
    raise LedgerError(f"HTTP {response.status_code}: {detail}")


def ingest_documents(
    documents: list[Document],
    sink: Sink,
    progress: Callable[[int], None] | None = None,
    batch_size: int = 50,
) -> tuple[Counter[str], list[str]]:
    """Ingest documents in batches; count outcomes and collect failures (one per line)."""
    outcomes: Counter[str] = Counter()
    failures: list[str] = []
    done = 0
    for offset in range(0, len(documents), batch_size):
        batch: list[tuple[Document, str]] = []
        for document in documents[offset : offset + batch_size]:
            try:
                batch.append((document, document.path.read_bytes().decode("utf-8")))
            except (UnicodeDecodeError, OSError) as exc:
                outcomes["failed"] += 1
                failures.append(f"{document.path}: {exc}")
        for (document, _), (outcome, detail) in zip(batch, sink.put_many(batch), strict=True):
            outcomes[outcome] += 1
            if outcome == "failed":
                failures.append(f"{document.path}: {detail}")
        done += min(batch_size, len(documents) - offset)
        if progress is not None:
            progress(done)
    return outcomes, failures
