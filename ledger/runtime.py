"""An open ledger together with the keys that sign and verify it and where it is stored."""

from __future__ import annotations

from dataclasses import dataclass, field

from ledger.access.policy_desk import PolicyDesk
from ledger.crypto.hmac_keys import HmacKey
from ledger.crypto.signing import Keyring
from ledger.eventlog.application import Ledger
from ledger.eventlog.database import DatabaseConfig
from ledger.keys.api_key_desk import ApiKeyDesk
from ledger.keys.cache import LEASE_SECONDS, KeyCache
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
    limits: Limits = field(default_factory=Limits)
    key_lease: float = LEASE_SECONDS
    """Seconds a process may admit a remembered API key without reading its rows; every
    process of one ledger uses the same (``ledger/keys/cache.py``)."""
    api_keys: ApiKeyDesk = field(init=False)
    """Issue, revoke, authenticate and list API keys."""
    policies: PolicyDesk = field(init=False)
    """Publishes access policies and knows the one in force."""
    components: ComponentDesk = field(init=False)
    """Retires model and tool versions, declares context-assembly versions in force."""
    sources: SourceDesk = field(init=False)
    """Register sources, add versions, withdraw, ingest in batches."""

    def __post_init__(self) -> None:
        ledger = self.ledger
        cache = KeyCache(
            ledger.recorder.select_events,
            lambda key_id, rows: ledger.checks.check(ledger.recorder, key_id, rows, 1),
            lease=self.key_lease,
        )
        self.api_keys = ApiKeyDesk(ledger, cache)
        self.policies = PolicyDesk(ledger)
        self.components = ComponentDesk(ledger)
        self.sources = SourceDesk(ledger, self.limits, lambda: self.policies.in_force().policy)

    def close(self) -> None:
        """Release database connections."""
        self.ledger.close()
