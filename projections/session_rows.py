"""The console's session rows, kept in the read-model database (``console_sessions``).

A row holds the SHA-256 of a session id (never the id), the key's name, a digest of the key's
stored hash, the CSRF token and the session's times; ``api/console/sessions.py`` decides what
they mean. These rows are not derived from the log: a replay or a rebuild leaves them alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import Column, Engine, MetaData, String, Table, delete, insert, select

session_metadata = MetaData()

console_sessions = Table(
    "console_sessions",
    session_metadata,
    Column("session_hash", String(64), primary_key=True),
    Column("key_name", String(128), nullable=False),
    Column("key_mark", String(64), nullable=False),
    Column("csrf", String(64), nullable=False),
    Column("created_at", String(32), nullable=False),
    Column("expires_at", String(32), nullable=False),
)


class SessionRows:
    """Reads and writes the session table (created when missing)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        session_metadata.create_all(engine)

    def add(self, row: Mapping[str, str], swept_before: str) -> None:
        """Insert ``row``, deleting in the same transaction every session that expired before
        ``swept_before``."""
        with self.engine.begin() as conn:
            conn.execute(
                delete(console_sessions).where(console_sessions.c.expires_at < swept_before)
            )
            conn.execute(insert(console_sessions), dict(row))

    def find(self, session_hash: str) -> Mapping[str, Any] | None:
        """The row of ``session_hash``, or None."""
        with self.engine.connect() as conn:
            row = (
                conn.execute(
                    select(console_sessions).where(console_sessions.c.session_hash == session_hash)
                )
                .mappings()
                .first()
            )
        return None if row is None else dict(row)

    def remove(self, session_hash: str) -> None:
        """Delete the row of ``session_hash`` (nothing when there is none)."""
        with self.engine.begin() as conn:
            conn.execute(
                delete(console_sessions).where(console_sessions.c.session_hash == session_hash)
            )
