"""The composition root: open the ledger described by :class:`~api.settings.Settings`."""

from __future__ import annotations

from api.settings import Settings
from ledger.crypto.hmac_keys import open_hmac_key
from ledger.crypto.signing import KeyStore
from ledger.eventlog.application import Ledger
from ledger.eventlog.runtime import LedgerRuntime
from ledger.registry.ingestion import Limits
from projections.database import ensure_postgres_schema
from projections.log_rows import notification_id_of


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
        signing_key,
        database.eventsourcing_env(),
        limits,
        keyring,
        keystore.load_keyring,
        locate_event=notification_id_of,
    )
    return LedgerRuntime(
        ledger=ledger, keyring=keyring, keystore=keystore, database=database, hmac_key=hmac_key
    )
