"""The request bodies of the source routes: a new source, a new version, a withdrawal."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from api.bodies import AccessIn
from api.deps import Rfc3339


class TextIn(BaseModel):
    """Fields shared by a new source and a new version."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(description="the document; normalised and frozen on ingestion")
    media_type: str = Field(
        default="text/plain", description="text/plain, text/markdown, text/html"
    )
    effective_from: Rfc3339 | None = Field(default=None, description="RFC 3339; default now")
    tables: list[Any] | None = Field(
        default=None,
        description=(
            "[{table_id, title, columns | header_rows, rows, caption, units, footnotes, "
            "label_columns}]; see docs/registry.md"
        ),
    )
    cite_headings: bool = Field(
        default=False,
        strict=True,
        description="make heading lines citeable spans (by default they are only breadcrumbs)",
    )


class SourceIn(TextIn):
    """``POST /v1/sources``."""

    source_id: str = Field(description="[A-Za-z0-9._:-]{1,128}, chosen by the client")
    title: str
    authority: str = Field(description="source_of_record, derived, advisory or fallback")
    uri: str | None = None
    metadata: dict[str, Any] | None = None
    access: AccessIn | None = Field(
        default=None,
        description="who the source is for; changed later only by POST "
        "/v1/sources/{source_id}/access (docs/access.md)",
    )


class VersionIn(TextIn):
    """``POST /v1/sources/{source_id}/versions``."""

    title: str | None = Field(default=None, description="default: the current title")


class WithdrawIn(BaseModel):
    """``POST /v1/sources/{source_id}/withdraw``."""

    model_config = ConfigDict(extra="forbid")
    reason: str
