"""Open the ledger described by :class:`~ledger.settings.Settings`: keys, database, app."""

from __future__ import annotations

from dataclasses import dataclass

import psycopg
from psycopg import sql

from ledger.application import Ledger
from ledger.hmac_keys import HmacKey, open_hmac_key
from ledger.ingestion import Limits
from ledger.settings import DatabaseConfig, Settings
from ledger.signing import Keyring, KeyStore


@dataclass
class LedgerRuntime:
    """An open ledger with the keys that sign and verify it."""

    ledger: Ledger
    keyring: Keyring
    keystore: KeyStore
    database: DatabaseConfig
    hmac_key: HmacKey

    def close(self) -> None:
        """Release database connections."""
        self.ledger.close()


def ensure_postgres_schema(database: DatabaseConfig) -> None:
    """Create the configured PostgreSQL schema if it does not exist yet."""
    if database.kind != "postgresql" or not database.schema:
        return
    with psycopg.connect(
        host=database.host,
        port=database.port,
        dbname=database.dbname,
        user=database.user,
        password=database.password or None,
        autocommit=True,
    ) as conn:
        conn.execute(
            sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(database.schema))
        )


def open_ledger(settings: Settings) -> LedgerRuntime:
    """Load or create the signing key, prepare the database and open the application."""
    keystore = KeyStore(settings.keys_dir, settings.signing_key_file)
    signing_key, keyring = keystore.open()
    hmac_key = open_hmac_key(settings.keys_dir, settings.hmac_key_file)
    database = settings.database()
    if database.kind == "sqlite":
        assert database.sqlite_path is not None
        database.sqlite_path.parent.mkdir(parents=True, exist_ok=True)
    ensure_postgres_schema(database)
    limits = Limits(settings.max_text_bytes, settings.max_sentence_chars)
    ledger = Ledger(
        signing_key, database.eventsourcing_env(), limits, keyring, keystore.load_keyring
    )
    return LedgerRuntime(
        ledger=ledger, keyring=keyring, keystore=keystore, database=database, hmac_key=hmac_key
    )
