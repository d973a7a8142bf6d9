"""The key watch: it spares most requests the read of their key's rows
(``projections/key_rows.py``). Five times per lease it reads the
events committed since its last look (by notification id, which both backends give out in
commit order) and tells the key cache which keys changed, so that a remembered key may be
trusted for a short lease without reading its rows (``ledger/keys/cache.py`` has the argument
that a revocation still holds on the very next request in every process).
"""

from __future__ import annotations

import asyncio
import time

import structlog

from ledger.keys import cache as key_cache
from ledger.keys.api_keys import ApiKey
from ledger.keys.cache import KeyCache
from projections.key_rows import LOOK_LIMIT, AsyncKeyRows, SqliteKeyRows

KEY_TOPICS = frozenset({ApiKey.Issued.TOPIC, ApiKey.Reissued.TOPIC, ApiKey.Revoked.TOPIC})

log = structlog.get_logger("provledger.api.keys")


class KeyWatch:
    """Looks for key events five times per lease and tells the key cache
    (:meth:`ledger.keys.cache.KeyCache.watched`); a look that fails lapses the cache's lease
    until one succeeds."""

    def __init__(self, reader: AsyncKeyRows | SqliteKeyRows, cache: KeyCache) -> None:
        self._reader = reader
        self._cache = cache
        self._after: int | None = None
        self.failures = 0
        """Looks failed in a row (0 once one succeeds)."""

    async def look(self) -> bool:
        """Look once; True when more events are waiting than one look reads."""
        began = time.monotonic()
        if self._after is None:
            # Remembered keys were confirmed before this watch saw anything: from the current
            # position on it sees every change, so only reads made after it are trusted.
            self._after = await self._reader.position()
            self._cache.forget_confirmations()
            self._cache.watched((), began)
            return False
        changes = await self._reader.changes(self._after, LOOK_LIMIT)
        more = len(changes) >= LOOK_LIMIT
        if changes:
            self._after = changes[-1][0]
        changed = [originator for _, originator, topic in changes if topic in KEY_TOPICS]
        self._cache.watched(changed, None if more else began)
        return more

    async def run(self) -> None:
        """Look until cancelled. A failure is logged when looking starts to fail and again
        when it recovers, not at every look in between (five a lease)."""
        try:
            while True:
                try:
                    more = await self.look()
                except Exception as error:
                    self._cache.lapse()
                    if not self.failures:
                        log.warning("key_watch_failed", error=type(error).__name__)
                    self.failures += 1
                    more = False
                else:
                    if self.failures:
                        log.info("key_watch_recovered", failed_looks=self.failures)
                    self.failures = 0
                if not more:
                    await asyncio.sleep(key_cache.poll_seconds(self._cache.lease))
        finally:
            self._cache.lapse()
