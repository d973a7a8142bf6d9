"""Tables of the read models (SQLAlchemy Core), shared by SQLite and PostgreSQL."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

tracking = Table(
    "projection_tracking",
    metadata,
    Column("projection", String(64), primary_key=True),
    Column("position", BigInteger, nullable=False),
)

sources = Table(
    "registry_sources",
    metadata,
    Column("source_id", String(128), primary_key=True),
    Column("aggregate_id", String(36), nullable=False, unique=True),
    Column("title", Text, nullable=False),
    Column("authority", String(32), nullable=False),
    Column("uri", Text),
    Column("metadata", JSON, nullable=False),
    Column("registered_at", String(32), nullable=False),
    Column("current_version", Integer, nullable=False),
    Column("withdrawn_at", String(32)),
    Column("withdraw_reason", Text),
    Column("withdrawn_position", BigInteger),
)

versions = Table(
    "registry_versions",
    metadata,
    Column("source_id", String(128), primary_key=True),
    Column("version", Integer, primary_key=True),
    Column("version_hash", String(80), nullable=False),
    Column("media_type", String(32), nullable=False),
    Column("title", Text, nullable=False),
    Column("frozen_text", Text, nullable=False),
    Column("effective_from", String(32), nullable=False),
    Column("effective_to", String(32)),
    Column("recorded_at", String(32), nullable=False),
    Column("superseded_at", String(32)),
    Column("span_count", Integer, nullable=False),
    Column("segmenter", String(64), nullable=False),
    Column("tables", JSON, nullable=False),
    Column("position", BigInteger, nullable=False),
)

spans = Table(
    "registry_spans",
    metadata,
    Column("source_id", String(128), primary_key=True),
    Column("version", Integer, primary_key=True),
    Column("ord", Integer, primary_key=True),
    Column("span_id", String(32), nullable=False),
    Column("start", Integer, nullable=False),
    Column("end", Integer, nullable=False),
    Column("text", Text, nullable=False),
    Column("sent_index", Integer, nullable=False),
    Column("parent_span_id", String(32)),
    Column("heading_path", JSON, nullable=False),
    Column("paragraph", Integer, nullable=False),
    Column("page", Integer),
    Column("table_id", String(64)),
    Column("table_row", Integer),
    Column("table_col", Integer),
    Column("envelope", Text),
    # Not unique: a version whose text repeats an earlier version's has the same span ids.
    Index("ix_registry_spans_span_id", "span_id"),
)

source_access = Table(
    "registry_access",
    metadata,
    Column("source_id", String(128), primary_key=True),
    Column("position", BigInteger, primary_key=True),
    Column("recorded_at", String(32), nullable=False),
    Column("access", JSON, nullable=False),
)
"""Each source's access attributes as registered and as changed, for as-of reads (display
only: the entitlement gate decides from the verified source events)."""


retrieval_sources = Table(
    "retrieval_sources",
    metadata,
    Column("source_id", String(128), primary_key=True),
    Column("aggregate_id", String(36), nullable=False, unique=True),
    Column("authority", String(32), nullable=False),
)

retrieval_spans = Table(
    "retrieval_spans",
    metadata,
    Column("source_id", String(128), primary_key=True),
    Column("version", Integer, primary_key=True),
    Column("ord", Integer, primary_key=True),
    Column("span_id", String(32), nullable=False),
    Column("start", Integer, nullable=False),
    Column("end", Integer, nullable=False),
    Column("text", Text, nullable=False),
    Column("heading_path", JSON, nullable=False),
    Column("envelope", Text),
    Column("table_ref", JSON),
    Column("authority", String(32), nullable=False),
    Column("effective_from", String(32), nullable=False),
    Column("effective_to", String(32)),
    Column("withdrawn", Integer, nullable=False),
    Column("terms", JSON, nullable=False),
    Column("vector", LargeBinary, nullable=False),
    Column("model", String(64), nullable=False),
    # Added with the dense ranker's token match: null in rows of an earlier model, which the
    # index refuses until ``provledger projections rebuild`` re-embeds them.
    Column("tokens", LargeBinary),
    # Added with the search index: the span's document number in the index (0, 1, 2, ... in
    # the order the projection wrote the rows) and its version's key in retrieval_versions.
    # Null in rows of an earlier release, which the index refuses until a rebuild.
    Column("row_id", BigInteger, index=True, unique=True),
    Column("version_key", Integer),
)
"""Every span of every version with its retrieval terms, float16 unit vector and uint16 token
ids: the journal the search index follows, row by row (docs/retrieval.md)."""

retrieval_versions = Table(
    "retrieval_versions",
    metadata,
    Column("version_key", Integer, primary_key=True),
    Column("source_id", String(128), nullable=False),
    Column("version", Integer, nullable=False),
    Column("authority", String(32), nullable=False),
    Column("effective_from", String(32), nullable=False),
    Column("effective_to", String(32)),
    Column("withdrawn", Integer, nullable=False),
    Column("changed_at", BigInteger, nullable=False, index=True),
    UniqueConstraint("source_id", "version"),
)
"""Every source version with what decides whether its spans may be ranked (in force at a
moment, not withdrawn, within a query's filters); ``changed_at`` is the notification id of
the event that last changed the row, so a process reloads only what changed."""

retrieval_state = Table(
    "retrieval_state",
    metadata,
    Column("name", String(32), primary_key=True),
    Column("value", String(64), nullable=False),
)
"""The retrieval read model's epoch: a new one at every rebuild, so an index built from the
rows before it is thrown away and built again."""

RETRIEVAL_TABLES = (retrieval_sources, retrieval_spans, retrieval_versions, retrieval_state)

receipts = Table(
    "receipts",
    metadata,
    Column("receipt_id", String(40), primary_key=True),
    Column("aggregate_id", String(36), nullable=False, unique=True),
    Column("policy_version", Text, nullable=False),
    Column("route", String(32), nullable=False),
    Column("as_of", String(32), nullable=False),
    Column("expires_at", String(32)),
    Column("opened_at", String(32), nullable=False),
    Column("position", BigInteger, nullable=False),
    Column("expired_at", String(32)),
    Column("expiry_reason", String(32)),
    # Added with per-inference receipts: null in a read model built before (see
    # ``projections.database.add_missing_columns``) until ``provledger projections rebuild``.
    Column("actor", Text),
    Column("purpose", Text),
    Column("inference_id", String(128)),
    Column("opened_by", Text),
    # Added for the console's receipt list (the question asked): null in a read model built
    # before, until ``provledger projections rebuild``.
    Column("request", Text),
    Index("ix_receipts_policy", "policy_version"),
    Index("ix_receipts_actor", "actor", "position"),
)
Index(
    "ix_receipts_due",
    receipts.c.expires_at,
    postgresql_where=receipts.c.expired_at.is_(None),
    sqlite_where=receipts.c.expired_at.is_(None),
)
"""Receipts not yet expired, by ``expires_at``: the expiry sweep reads only these, however
many receipts expired before."""

receipt_claims = Table(
    "receipt_claims",
    metadata,
    Column("claim_id", String(32), primary_key=True),
    Column("receipt_id", String(40), nullable=False, index=True),
    Column("ordinal", Integer, nullable=False),
    Column("status", String(16), nullable=False),
    Column("committed", Integer, nullable=False),
    Column("client_ref", Text),
    Column("claim_type", String(16), nullable=False),
    Column("recorded_at", String(32), nullable=False),
    Column("position", BigInteger, nullable=False),
)

claim_bindings = Table(
    "claim_bindings",
    metadata,
    Column("claim_id", String(32), primary_key=True),
    Column("ord", Integer, primary_key=True),
    Column("span_id", String(32), nullable=False),
    Column("source_id", String(128)),
    Column("version", Integer),
    Column("role", String(24), nullable=False),
    Index("ix_claim_bindings_source_version", "source_id", "version"),
)

review_queue = Table(
    "review_queue",
    metadata,
    Column("position", BigInteger, primary_key=True),
    Column("claim_id", String(32), nullable=False, index=True),
    Column("receipt_id", String(40), nullable=False),
    Column("claim_text", Text, nullable=False),
    Column("verdict", String(16), nullable=False),
    Column("verifier", String(32), nullable=False),
    Column("model", String(200), nullable=False),
    Column("judged_at", String(32), nullable=False),
)

receipt_parts = Table(
    "receipt_parts",
    metadata,
    Column("receipt_id", String(40), primary_key=True),
    Column("ord", Integer, primary_key=True),
    Column("kind", String(24), nullable=False),
    Column("name", Text, nullable=False),
    Column("version", Text),
    Index("ix_receipt_parts_kind_name", "kind", "name", "version"),
)
"""The model, tools and context assembly each receipt records (``ord`` in that order; a tool
recorded by its bare name has a null version): what a retirement or a declaration expires.
Empty for receipts opened before it, until ``provledger projections rebuild``."""

receipt_expiries = Table(
    "receipt_expiries",
    metadata,
    Column("receipt_id", String(40), primary_key=True),
    Column("cause", String(40), primary_key=True),
    Column("reason", String(32), nullable=False),
    Column("recorded_at", String(32), nullable=False),
    Column("position", BigInteger, nullable=False),
    Index("ix_receipt_expiries_cause", "cause", "receipt_id"),
)
"""Every expiry of every receipt, by the cause that recorded it (``n<id>`` of the change):
what one change expired. Empty for expiries recorded before it, until a rebuild."""
receipt_memory = Table(
    "receipt_memory",
    metadata,
    Column("receipt_id", String(40), primary_key=True),
    Column("memory_id", String(128), primary_key=True),
    Column("version", Integer, nullable=False),
    Column("position", BigInteger, nullable=False),
    Index("ix_receipt_memory_item", "memory_id", "version"),
)
"""The memory item versions each receipt's pool sealed (docs/memory.md): which receipts a
correction, a revocation or an expiry of an item expires."""

prompt_cache = Table(
    "prompt_cache",
    metadata,
    Column("prefix_sha256", String(80), primary_key=True),
    Column("calls", BigInteger, nullable=False),
    Column("input_tokens", BigInteger, nullable=False),
    Column("cache_write_tokens", BigInteger, nullable=False),
    Column("cache_read_tokens", BigInteger, nullable=False),
    Column("first_at", String(32), nullable=False),
    Column("last_at", String(32), nullable=False),
    Column("position", BigInteger, nullable=False),
)
"""Prompt-cache usage summed per stable-prefix hash (``unrecorded`` for receipts opened
before packets recorded one): what ``/metrics`` and the console's prompt-cache page read
(docs/observability.md#prompt-cache)."""

RECEIPT_TABLES = (
    receipts,
    receipt_claims,
    claim_bindings,
    review_queue,
    receipt_parts,
    receipt_expiries,
    receipt_memory,
    prompt_cache,
)

memory_items = Table(
    "memory_items",
    metadata,
    Column("memory_id", String(128), primary_key=True),
    Column("aggregate_id", String(36), nullable=False, unique=True),
    Column("purpose", String(64), nullable=False),
    Column("current_version", Integer, nullable=False),
    Column("expires_at", String(32), nullable=False),
    Column("recorded_at", String(32), nullable=False),
    Column("updated_at", String(32), nullable=False),
    Column("revoked_at", String(32)),
    Column("revoked_position", BigInteger),
    Column("position", BigInteger, nullable=False),
)

memory_versions = Table(
    "memory_versions",
    metadata,
    Column("memory_id", String(128), primary_key=True),
    Column("version", Integer, primary_key=True),
    Column("expires_at", String(32), nullable=False),
    Column("recorded_at", String(32), nullable=False),
    Column("position", BigInteger, nullable=False),
    Index("ix_memory_versions_expires", "expires_at"),
)
"""Every version of every memory item, with when it expires: the index the list, the
expiry process and the sweep read (the items themselves come from their verified events)."""

MEMORY_TABLES = (memory_items, memory_versions)

REGISTRY_TABLES = (sources, versions, spans, source_access, *MEMORY_TABLES)
"""The registry read model's tables (memory items included: projections/memory.py)."""

merkle_nodes = Table(
    "merkle_nodes",
    metadata,
    Column("level", Integer, primary_key=True),
    Column("idx", BigInteger, primary_key=True),
    Column("hash", LargeBinary(32), nullable=False),
    sqlite_with_rowid=False,  # the primary key is the table: one B-tree, not two
)

merkle_leaves = Table(
    "merkle_leaves",
    metadata,
    Column("leaf_index", BigInteger, primary_key=True),
    Column("notification_id", BigInteger, nullable=False, unique=True),
    Column("originator_id", String(36), nullable=False),
    Column("originator_version", Integer, nullable=False),
    Index("ix_merkle_leaves_originator", "originator_id", "originator_version"),
    sqlite_with_rowid=False,
)

checkpoints = Table(
    "checkpoints",
    metadata,
    Column("size", BigInteger, primary_key=True),
    Column("root", LargeBinary(32), nullable=False),
    Column("note", Text, nullable=False),
    Column("created_at", String(32), nullable=False),
    Column("position", BigInteger, nullable=False),
)

TRANSPARENCY_TABLES = (merkle_nodes, merkle_leaves, checkpoints)
