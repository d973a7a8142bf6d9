"""Service settings, read from ``PROVLEDGER_*`` environment variables.

Only the data directory is needed to start: by default the ledger keeps SQLite files and its
signing key there. A ``postgresql://`` database URL moves events (and read models) to
PostgreSQL; the data dir then only holds keys unless a key file is supplied.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from ledger.errors import ConfigurationError
from ledger.eventlog.database import DatabaseConfig, parse_database_url
from ledger.keys.signing_keys import KeyStore


class Settings(BaseSettings):
    """Everything provledger reads from its environment."""

    model_config = SettingsConfigDict(env_prefix="PROVLEDGER_", extra="ignore")

    data_dir: Path = Field(default=Path("./provledger-data"))
    database_url: str | None = None
    database_password_file: Path | None = None
    """A file holding the PostgreSQL password (a mounted secret); it replaces any password in
    :attr:`database_url`, so the URL itself need carry none."""
    signing_key_file: Path | None = None
    hmac_key_file: Path | None = None
    support_threshold: float | None = Field(default=None, ge=0.0, le=1.0)
    max_text_bytes: int = Field(default=10 * 1024 * 1024, ge=1)
    max_body_bytes: int = Field(default=4 * 1024 * 1024, ge=1)
    """The largest request body a route takes (``413`` beyond it), counted while it streams."""
    max_source_body_bytes: int | None = Field(default=None, ge=1)
    """The same for the routes that carry a source text; default ``3 * max_text_bytes + 1 MiB``
    (JSON escapes can triple a text's size)."""
    max_sentence_chars: int = Field(default=400, ge=40)
    entailment: str = Field(default="none", pattern="^(none|http)$")
    entailment_url: str | None = None
    entailment_model: str = "gpt-4o-mini"
    entailment_api_key: str | None = Field(default=None, repr=False)
    entailment_api_key_file: Path | None = None
    """A file holding :attr:`entailment_api_key` (a mounted secret); it takes precedence."""
    entailment_sample_rate: float = Field(default=0.0, ge=0.0, le=1.0)
    log_origin: str = Field(default="provledger.local/ledger", pattern=r"^[!-~]{1,255}$")
    witness_url: str | None = None
    """A C2SP tlog-witness that cosigns each new checkpoint (docs/audit.md)."""
    witness_vkey: str | None = None
    """The witness's verifier key; its cosignatures are checked before they are served."""
    log_level: str = "INFO"
    background: bool = True
    """Run the projections and the expiry process in the API process (off when a separate
    ``provledger worker`` process does it for one or more API processes)."""
    log_json: bool = True
    metrics_addr: str | None = None
    """``[HOST:]PORT`` of an unauthenticated ``/metrics`` bind (host default 127.0.0.1)."""
    projection_max_lag: int = Field(default=10_000, ge=0)
    """How many events a projection may be behind the log before ``/readyz`` answers 503."""
    key_lease_ms: int = Field(default=500, ge=0, le=10_000)
    """How long a process admits an API key it verified without reading the key's rows again,
    after its last look for key events; a revocation waits as long before it answers, so every
    process of one ledger must use the same value (0: read the rows on every request)."""
    read_wait_seconds: float = Field(default=5.0, ge=0.0, le=60.0)
    """How long a request carrying ``Provledger-Position`` waits for the read models to reach
    that position before the 503 problem ``position-not-reached`` (api/consistency.py)."""

    @property
    def source_body_limit(self) -> int:
        """The body limit of ``POST /v1/sources`` and ``POST /v1/sources/{id}/versions``."""
        if self.max_source_body_bytes is not None:
            return self.max_source_body_bytes
        return self.max_text_bytes * 3 + 1024 * 1024

    @property
    def keys_dir(self) -> Path:
        """Where the signing key and keyring live."""
        return self.data_dir / "keys"

    def database(self) -> DatabaseConfig:
        """Parse :attr:`database_url` (or the embedded default), with the password from
        :attr:`database_password_file` when one is given."""
        if self.database_url is None:
            return DatabaseConfig(kind="sqlite", sqlite_path=self.data_dir / "ledger.sqlite3")
        database = parse_database_url(self.database_url)
        if self.database_password_file is not None and database.kind == "postgresql":
            password = read_secret_file(
                "PROVLEDGER_DATABASE_PASSWORD_FILE", self.database_password_file
            )
            database = replace(database, password=password)
        return database

    def keystore(self) -> KeyStore:
        """The signing keys' store (:attr:`keys_dir`, or :attr:`signing_key_file` alone): the
        one place the service and every command find it."""
        return KeyStore(self.keys_dir, self.signing_key_file)

    def entailment_key(self) -> str | None:
        """The entailment service's API key, from its file when one is given."""
        if self.entailment_api_key_file is not None:
            return read_secret_file(
                "PROVLEDGER_ENTAILMENT_API_KEY_FILE", self.entailment_api_key_file
            )
        return self.entailment_api_key


def read_secret_file(variable: str, path: Path) -> str:
    """A secret mounted as a file (Docker and Kubernetes secrets): its text without the
    trailing newline; a missing, unreadable or empty file names the variable."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigurationError(f"{variable}: cannot read {path}: {exc}") from exc
    secret = text.rstrip("\r\n")
    if not secret:
        raise ConfigurationError(f"{variable}: {path} is empty")
    return secret
