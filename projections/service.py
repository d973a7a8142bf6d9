"""The read side of one ledger: read-model database, projection runners, async engine."""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

import structlog
from sqlalchemy.ext.asyncio import AsyncEngine

from ledger.crypto.signing import Keyring
from ledger.errors import ReadModelsAhead, TransparencyLogTampered
from ledger.eventlog.application import Ledger
from ledger.eventlog.database import DatabaseConfig
from ledger.receipts.served_rows import ServedReceipts
from ledger.registry.served_rows import ServedRows
from ledger.registry.verified_spans import VerifiedSpans
from projections.catalog import READ_MODELS, REPLAYED_TABLES, ProjectionParts
from projections.database import ReadModelDatabase
from projections.digest import tables_digest
from projections.log_anchor import LogAnchor
from projections.log_rows import aggregate_events, aggregate_heads, applied_version
from projections.retrieval_index import RetrievalIndex
from projections.runner import ProjectionRunner
from projections.schema import tracking
from projections.span_resolver import RegistrySpanResolver

DEFAULT_ORIGIN = "provledger.local/ledger"
"""The checkpoint origin line unless ``PROVLEDGER_LOG_ORIGIN`` names another."""

log = structlog.get_logger("provledger.projections")


def default_index_dir(database: DatabaseConfig) -> Path:
    """Where the search index lives unless the settings say: beside the SQLite files, or for
    PostgreSQL in the machine's temporary folder, one per database and schema (it is built
    again from the read model wherever it is missing)."""
    if database.sqlite_path is not None:
        return database.sqlite_path.parent / "retrieval-index"
    name = f"{database.host}-{database.port}-{database.dbname}-{database.schema or 'public'}"
    return Path(tempfile.gettempdir()) / "provledger-search" / name


class ReadSide:
    """Owns the read models of a ledger and keeps them caught up."""

    def __init__(
        self,
        ledger: Ledger,
        database: DatabaseConfig,
        origin: str = DEFAULT_ORIGIN,
        keyring: Keyring | None = None,
        index_dir: Path | None = None,
    ) -> None:
        self.ledger = ledger
        self.db = ReadModelDatabase.open(database)
        self.anchor = LogAnchor(ledger, self.db.sync)
        trusted = [record.public_key for record in keyring.records.values()] if keyring else []
        parts = ProjectionParts(self.db.sync, ledger.signing_key, origin, trusted)
        self.runners = [
            ProjectionRunner(ledger, self.db.sync, model.build(parts), self.anchor.check)
            for model in READ_MODELS
        ]
        """One runner per read model (``projections/catalog.py``), in catch-up order."""
        named = {runner.projection.name: runner for runner in self.runners}
        self.registry = named["registry"]
        self.receipts = named["receipts"]
        self.transparency = named["transparency"]
        self.retrieval = named["retrieval"]
        self.origin = origin
        self.retrieval_index = RetrievalIndex(
            self.db.sync, self.retrieval.catch_up, index_dir or default_index_dir(database)
        )
        self.span_resolver = VerifiedSpans(
            RegistrySpanResolver(self.db.reads, self.registry.catch_up), ledger
        )
        self.served = ServedRows(
            self.span_resolver,
            lambda aggregate: applied_version(ledger.recorder, aggregate, self.registry.position()),
            lambda aggregates: aggregate_heads(ledger.recorder, aggregates),
        )
        """Checks what the registry's reads serve against the verified source events."""
        self.served_receipts = ServedReceipts(
            lambda aggregates: aggregate_heads(ledger.recorder, aggregates),
            lambda aggregates: {
                aggregate: ledger.verified_history(aggregate, stored)
                for aggregate, stored in aggregate_events(ledger.recorder, aggregates).items()
            },
            lambda aggregate: applied_version(ledger.recorder, aggregate, self.receipts.position()),
        )
        """Checks what the receipt and claim lists serve against the verified receipt events."""
        self._async: AsyncEngine | None = None
        self._stop = threading.Event()
        self._poller: threading.Thread | None = None
        self.transparency_rebuilt = False
        # Run after each background catch-up (e.g. the expiry process).
        self.followers: list[Callable[[], object]] = []

    @property
    def async_engine(self) -> AsyncEngine:
        """The engine API reads go through (created on first use, in the serving loop)."""
        if self._async is None:
            self._async = self.db.async_engine()
        return self._async

    def catch_up(self) -> int:
        """Bring every projection up to the end of the log; returns the lowest position."""
        return min(runner.catch_up() for runner in self.runners)

    def rebuild(self) -> str:
        """Replay the registry, receipts and retrieval read models from the first event;
        return the registry and receipts digest.

        The transparency log is kept (its signed checkpoints stand) unless it holds events
        the store no longer has (a store rolled back or restored from an older backup):
        then it is rebuilt from the store too, :attr:`transparency_rebuilt` says so, and the
        log followers start again from the first event (otherwise only those past the end).
        """
        self.transparency_rebuilt = False
        try:
            self.transparency.catch_up()
        except (ReadModelsAhead, TransparencyLogTampered) as exc:
            log.warning("transparency_log_rebuilt", reason=str(exc))
            self.anchor.failure = None  # the rebuild replaces what the check found
            self.transparency.rebuild()
            self.transparency_rebuilt = True
        self._restart_followers(everyone=self.transparency_rebuilt)
        for runner in self.runners:
            if runner is not self.transparency:
                runner.rebuild()
        return self.digest()

    def _restart_followers(self, everyone: bool) -> None:
        """Send the log followers (expiry, entailment sampling) back to the first event: all
        of them after the store was rolled back (their positions may point past events it now
        holds under reused ids), else those past the log's end. Their effects are idempotent,
        so a full pass is safe."""
        projections = [runner.projection.name for runner in self.runners]
        stale = tracking.delete().where(tracking.c.projection.not_in(projections))
        if not everyone:
            stale = stale.where(tracking.c.position > self.ledger.last_position())
        with self.db.sync.begin() as conn:
            conn.execute(stale)

    def digest(self) -> str:
        """Digest of every read-model table."""
        return tables_digest(self.db.sync, REPLAYED_TABLES)

    def start_polling(self, interval: float = 0.5) -> None:
        """Catch up in a background thread, for events written by other processes."""

        def poll() -> None:
            while not self._stop.wait(interval):
                try:
                    self.catch_up()
                    for follower in self.followers:
                        follower()
                except Exception as exc:  # keep polling; the failure is logged once per round
                    log.error("projection_failed", error=type(exc).__name__, exc_info=exc)

        self._poller = threading.Thread(target=poll, name="projection-poller", daemon=True)
        self._poller.start()

    def run_forever(self, interval: float = 0.5) -> None:
        """Catch up until :meth:`stop` is called (``provledger project``)."""
        while not self._stop.is_set():
            self.catch_up()
            for follower in self.followers:
                follower()
            self._stop.wait(interval)

    def stop(self) -> None:
        """Stop polling."""
        self._stop.set()
        if self._poller is not None:
            self._poller.join(timeout=10)

    async def aclose(self) -> None:
        """Stop and dispose of engines (from the event loop)."""
        self.stop()
        if self._async is not None:
            await self._async.dispose()
        self.db.close()

    def close(self) -> None:
        """Stop and dispose of the sync engine (outside an event loop)."""
        self.stop()
        self.db.close()
