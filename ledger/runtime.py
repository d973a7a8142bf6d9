"""An open ledger together with the keys that sign and verify it, where it is stored, and the
desks that need nothing but the ledger (API keys, policies, components, sources).

A record: the composition root (``api/services.py`` :func:`~api.services.open_ledger`) builds
every part of it; nothing here constructs a service."""

from __future__ import annotations

from dataclasses import dataclass

from ledger.access.policy_desk import PolicyDesk
from ledger.crypto.hmac_keys import HmacKey
from ledger.crypto.signing import Keyring
from ledger.eventlog.application import Ledger
from ledger.eventlog.database import DatabaseConfig
from ledger.keys.api_key_desk import ApiKeyDesk
from ledger.keys.signing_keys import KeyStore
from ledger.receipts.component_desk import ComponentDesk
from ledger.registry.ingestion import Limits
from ledger.registry.source_desk import SourceDesk


@dataclass
class LedgerRuntime:
    """An open ledger with the keys that sign and verify it."""

    ledger: Ledger
    keyring: Keyring
    keystore: KeyStore
    database: DatabaseConfig
    hmac_key: HmacKey
    limits: Limits
    key_lease: float
    """Seconds a process may admit a remembered API key without reading its rows; every
    process of one ledger uses the same (``ledger/keys/cache.py``)."""
    api_keys: ApiKeyDesk
    """Issue, revoke, authenticate and list API keys."""
    policies: PolicyDesk
    """Publishes access policies and knows the one in force."""
    components: ComponentDesk
    """Retires model and tool versions, declares context-assembly versions in force."""
    sources: SourceDesk
    """Register sources, add versions, withdraw, ingest in batches."""

    def close(self) -> None:
        """Release database connections."""
        self.ledger.close()
