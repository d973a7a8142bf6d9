"""Turn a submitted document into a frozen version: normalise, hash, segment, encode.

Pure functions: nothing here touches storage. The result is what a ``VersionAdded`` event
records.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from ledger.crypto.canonical import canonical_json
from ledger.errors import InvalidInput, PayloadTooLarge
from ledger.registry.span_codec import encode_spans
from ledger.text.normalize import MEDIA_TYPES, normalise
from ledger.text.spans import Span, build_spans
from ledger.text.tables import (
    CellPlacement,
    Table,
    parse_tables,
    render_tables,
    table_json,
    with_document_tables,
)

SEGMENTER = "provledger-segmenter/3"
"""Names the span rules in force, envelopes included; recorded with every version. Version 3:
the stub head of the last header row joins a table's envelope heading."""

MAX_TITLE = 1000
MAX_URI = 2048
MAX_METADATA_BYTES = 64 * 1024


@dataclass(frozen=True)
class Limits:
    """Configurable ingestion limits."""

    max_text_bytes: int = 10 * 1024 * 1024
    max_sentence_chars: int = 400


@dataclass(frozen=True)
class PreparedVersion:
    """A frozen text with its hash and spans, ready to be recorded."""

    text: str
    version_hash: str
    media_type: str
    title: str
    spans: list[Span]
    tables: tuple[Table, ...]

    def event_fields(self, effective_from: str) -> dict[str, Any]:
        """The fields of the ``VersionAdded`` event."""
        heading_paths, rows, cells = encode_spans(self.spans)
        return {
            "version_hash": self.version_hash,
            "media_type": self.media_type,
            "title": self.title,
            "text": self.text,
            "effective_from": effective_from,
            "segmenter": SEGMENTER,
            "heading_paths": heading_paths,
            "spans": rows,
            "cells": cells,
            "tables": [table_json(table) for table in self.tables],
        }


def version_hash_of(text: str) -> str:
    """``sha256:<hex>`` of the frozen text's UTF-8 bytes."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def check_encodable(field: str, value: str) -> str:
    """Refuse strings that UTF-8 cannot carry (lone surrogates from JSON escapes)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(field, "utf-8", f"{field} contains a lone surrogate") from None
    return value


def check_title(title: str) -> str:
    """A title is 1 to 1000 characters, not only whitespace."""
    check_encodable("title", title)
    if not title.strip():
        raise InvalidInput("title", "non-empty", "title must not be empty")
    if len(title) > MAX_TITLE:
        raise InvalidInput("title", "max-length", f"title is at most {MAX_TITLE} characters")
    return title.strip()


def check_uri(uri: str | None) -> str | None:
    """An optional URI of at most 2048 characters."""
    if uri is not None and (len(uri) > MAX_URI or not uri.strip()):
        raise InvalidInput("uri", "length", f"uri must be 1 to {MAX_URI} characters")
    return uri if uri is None else check_encodable("uri", uri)


def check_metadata(metadata: dict[str, Any] | None) -> dict[str, Any]:
    """Metadata is a JSON object of at most 64 KiB in canonical form."""
    if metadata is None:
        return {}
    try:
        size = len(canonical_json(metadata))
    except ValueError as exc:
        raise InvalidInput("metadata", "json", f"metadata is not plain JSON: {exc}") from exc
    if size > MAX_METADATA_BYTES:
        raise InvalidInput("metadata", "max-size", "metadata is at most 64 KiB")
    return metadata


def prepare_version(
    source_id: str,
    text: str,
    media_type: str,
    title: str,
    tables: object,
    limits: Limits,
    *,
    cite_headings: bool = False,
) -> PreparedVersion:
    """Normalise and freeze ``text``, render its tables, and build its spans.

    Heading lines are breadcrumbs, not spans, unless ``cite_headings``.
    """
    size = len(text.encode("utf-8", errors="surrogatepass"))
    if size > limits.max_text_bytes:
        raise PayloadTooLarge(f"text is {size} bytes; the limit is {limits.max_text_bytes} bytes")
    if media_type not in MEDIA_TYPES:
        raise InvalidInput(
            "media_type", "known-media-type", f"media_type must be one of {list(MEDIA_TYPES)}"
        )
    check_encodable("text", text)
    parsed_tables = parse_tables(tables if tables is not None else [])
    frozen, structure = normalise(text, media_type)
    parsed_tables = with_document_tables(structure.tables, parsed_tables)
    cells: list[CellPlacement] = []
    if parsed_tables:
        gap = "\n\n" if frozen else ""
        rendered, cells = render_tables(parsed_tables, offset=len(frozen) + len(gap))
        frozen = frozen + gap + rendered
    version_hash = version_hash_of(frozen)
    spans = build_spans(
        source_id,
        version_hash,
        frozen,
        structure,
        cells,
        max_sentence_chars=limits.max_sentence_chars,
        cite_headings=cite_headings,
    )
    return PreparedVersion(
        text=frozen,
        version_hash=version_hash,
        media_type=media_type,
        title=check_title(title),
        spans=spans,
        tables=parsed_tables,
    )
