"""Where the event log is stored: an SQLite file or a PostgreSQL database and schema.

:class:`DatabaseConfig` turns into the ``eventsourcing`` environment that selects the recorder;
it names no driver, so the domain stays free of database libraries.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from ledger.errors import InvalidInput


@dataclass(frozen=True)
class DatabaseConfig:
    """Where events are stored."""

    kind: str  # "sqlite" or "postgresql"
    sqlite_path: Path | None = None
    host: str = "127.0.0.1"
    port: int = 5432
    dbname: str = ""
    user: str = ""
    password: str = ""
    schema: str = ""

    def eventsourcing_env(self) -> dict[str, str]:
        """The ``eventsourcing`` environment that selects and configures the recorder."""
        if self.kind == "sqlite":
            assert self.sqlite_path is not None
            return {
                "PERSISTENCE_MODULE": "eventsourcing.sqlite",
                "SQLITE_DBNAME": str(self.sqlite_path),
                "SQLITE_LOCK_TIMEOUT": "10",
            }
        return {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_DBNAME": self.dbname,
            "POSTGRES_HOST": self.host,
            "POSTGRES_PORT": str(self.port),
            "POSTGRES_USER": self.user,
            "POSTGRES_PASSWORD": self.password,
            "POSTGRES_SCHEMA": self.schema,
            "POSTGRES_POOL_SIZE": "5",
            "POSTGRES_MAX_OVERFLOW": "10",
            "POSTGRES_LOCK_TIMEOUT": "5",
        }

    def advisory_key(self, purpose: str) -> int:
        """The PostgreSQL advisory lock key of this ledger for one ``purpose`` (``worker``,
        ``setup``): 63 bits of SHA-256 of the purpose and the schema, so that ledgers in other
        schemas of one database, and the purposes of one ledger, never share a lock."""
        digest = hashlib.sha256(f"provledger.{purpose}:{self.schema}".encode()).digest()
        return int.from_bytes(digest[:8], "big") >> 1

    def describe(self) -> str:
        """A log-safe description (never the password)."""
        if self.kind == "sqlite":
            return f"sqlite:{self.sqlite_path}"
        schema = f" schema={self.schema}" if self.schema else ""
        return f"postgresql://{self.user}@{self.host}:{self.port}/{self.dbname}{schema}"


def parse_database_url(url: str) -> DatabaseConfig:
    """Parse ``sqlite:///path`` or ``postgresql://user:pass@host:port/db?schema=name``."""
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        path = unquote(parts.path)
        if not path or path == "/":
            raise InvalidInput("database_url", "sqlite-path", "sqlite URL needs a file path")
        return DatabaseConfig(kind="sqlite", sqlite_path=Path(path))
    if parts.scheme not in ("postgresql", "postgres"):
        raise InvalidInput(
            "database_url", "scheme", "database URL must start with postgresql:// or sqlite:///"
        )
    dbname = unquote(parts.path.lstrip("/"))
    if not dbname:
        raise InvalidInput("database_url", "dbname", "PostgreSQL URL needs a database name")
    query = parse_qs(parts.query)
    schema = query.get("schema", [""])[0]
    if schema and not schema.replace("_", "").isalnum():
        raise InvalidInput("database_url", "schema", "schema must be letters, digits and _")
    return DatabaseConfig(
        kind="postgresql",
        host=parts.hostname or "127.0.0.1",
        port=parts.port or 5432,
        dbname=dbname,
        user=unquote(parts.username or "postgres"),
        password=unquote(parts.password or ""),
        schema=schema,
    )
