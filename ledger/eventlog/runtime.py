"""An open ledger together with the keys that sign and verify it and where it is stored."""

from __future__ import annotations

from dataclasses import dataclass

from ledger.crypto.hmac_keys import HmacKey
from ledger.crypto.signing import Keyring
from ledger.eventlog.application import Ledger
from ledger.eventlog.database import DatabaseConfig
from ledger.keys.signing_keys import KeyStore


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
