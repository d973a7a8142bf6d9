"""The scale ledgers: where each lives, and building or resuming one to its size.

A ledger is named by its backend and its size (``sqlite-10k``, ``postgres-1m``). Its data
folder (keys, SQLite files, the retrieval index, ``build.json``) sits under the scale root,
outside the checkout, so a later run finds it built; on PostgreSQL its tables sit in schema
``scale_<size>`` of database :data:`PG_DATABASE`. A build ingests documents of the corpus in
order through the bulk path (``provledger ingest``'s: :meth:`SourceDesk.ingest_batch`,
50 documents a transaction) and records after each batch how far it got, so a stopped build
goes on from there.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psycopg
import psycopg.sql

from api.services import Services, build_services
from api.settings import Settings
from benchmarks.scale.corpus import Corpus
from ledger.registry.source_desk import BatchItem, SourceDraft

SIZES = {"10k": 10_000, "100k": 100_000, "1m": 1_000_000}
BACKENDS = ("sqlite", "postgres")
PG_SERVER = "postgresql://postgres@127.0.0.1:5432"
PG_DATABASE = "provledger_scale"
DEFAULT_ROOT = Path(os.environ.get("PROVLEDGER_SCALE_ROOT", "/work/scale-data"))
BATCH = 50
CATCH_UP_EVERY = 10
"""Batches between two catch-ups of the read models during a build."""


@dataclass(frozen=True)
class ScaleLedger:
    """One ledger of the benchmark: its backend, its target size and where it lives."""

    backend: str
    size: str
    root: Path

    @property
    def name(self) -> str:
        """``<backend>-<size>``."""
        return f"{self.backend}-{self.size}"

    @property
    def target(self) -> int:
        """The spans a build stops at (the first batch that reaches it is the last)."""
        return SIZES[self.size]

    @property
    def data_dir(self) -> Path:
        """Keys, SQLite files, the retrieval index and the build's progress."""
        return self.root / self.name

    def settings(self, **overrides: object) -> Settings:
        """The settings a process of this ledger runs with."""
        url = None
        if self.backend == "postgres":
            url = f"{PG_SERVER}/{PG_DATABASE}?schema=scale_{self.size}"
        return Settings(data_dir=self.data_dir, database_url=url, **overrides)  # type: ignore[arg-type]

    def environment(self) -> dict[str, str]:
        """The same settings as environment variables, for a served process."""
        env = {"PROVLEDGER_DATA_DIR": str(self.data_dir)}
        if self.backend == "postgres":
            env["PROVLEDGER_DATABASE_URL"] = f"{PG_SERVER}/{PG_DATABASE}?schema=scale_{self.size}"
        return env

    def progress(self) -> dict[str, int]:
        """Documents ingested and spans they made so far."""
        path = self.data_dir / "build.json"
        if not path.exists():
            return {"documents": 0, "spans": 0}
        return json.loads(path.read_text())  # type: ignore[no-any-return]

    def record(self, documents: int, spans: int) -> None:
        """Write how far the build got (after each committed batch)."""
        path = self.data_dir / "build.json"
        path.write_text(json.dumps({"documents": documents, "spans": spans}) + "\n")


def ensure_database() -> None:
    """Create the benchmark's PostgreSQL database when missing (beside ``test``)."""
    with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True) as conn:
        found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (PG_DATABASE,))
        if found.fetchone() is None:
            conn.execute(f"CREATE DATABASE {PG_DATABASE}")


def build(
    ledger: ScaleLedger, corpus: Corpus, say: Callable[[str], None] = print
) -> dict[str, int]:
    """Ingest documents until the ledger holds its target of spans; resume from its progress.

    Returns the progress reached (documents, spans)."""
    if ledger.backend == "postgres":
        ensure_database()
    ledger.data_dir.mkdir(parents=True, exist_ok=True)
    done = ledger.progress()
    if done["spans"] >= ledger.target:
        return done
    services = build_services(ledger.settings(background=False))
    try:
        documents, spans = done["documents"], done["spans"]
        started, batches = time.perf_counter(), 0
        while spans < ledger.target:
            items = []
            for i in range(documents, documents + BATCH):
                document = corpus.document(i)
                draft = SourceDraft(document.text, "text/markdown", document.title, document.tables)
                items.append(BatchItem(document.source_id, draft, document.authority))
            outcomes = services.sources.ingest_batch(items, "key:scale-build")
            documents += len(items)
            spans += sum(outcome.span_count for outcome in outcomes)
            ledger.record(documents, spans)
            batches += 1
            if batches % CATCH_UP_EVERY == 0:
                _catch_up_all_but_retrieval(services)
                rate = (spans - done["spans"]) / (time.perf_counter() - started)
                say(f"{ledger.name}: {documents:,} documents, {spans:,} spans ({rate:,.0f}/s)")
        _catch_up_all_but_retrieval(services)
        return {"documents": documents, "spans": spans}
    finally:
        services.close()


def _catch_up_all_but_retrieval(services: Services) -> None:
    """Catch up every read model but the retrieval index: the first measuring run builds
    that one from the ledger, and times it as the projection's rebuild."""
    read_side = services.read_side
    for runner in read_side.runners:
        if runner is not read_side.retrieval:
            runner.catch_up()


def prepare(ledger: ScaleLedger, say: Callable[[str], None] = print) -> dict[str, float]:
    """Bring the retrieval read model and the search index level with the ledger (the first
    run after a build projects every span); return how long each took, seconds."""
    services = build_services(ledger.settings(background=False))
    try:
        read_side = services.read_side
        started = time.perf_counter()
        read_side.catch_up()
        projected = time.perf_counter()
        if ledger.backend == "postgres":
            analyse(ledger)
        index = read_side.retrieval_index.current()
        followed = time.perf_counter()
        say(
            f"{ledger.name}: read models caught up in {projected - started:.1f} s, search "
            f"index of {len(index):,} spans level in {followed - projected:.1f} s"
        )
        return {"project": projected - started, "index": followed - projected}
    finally:
        services.close()


def analyse(ledger: ScaleLedger) -> None:
    """``ANALYZE`` every table of the ledger's schema: this machine's PostgreSQL runs without
    autovacuum, so after a bulk load no table has statistics and the planner reads whole
    tables where an index answers (docs/deployment.md, "PostgreSQL")."""
    schema = f"scale_{ledger.size}"
    with psycopg.connect(f"{PG_SERVER}/{PG_DATABASE}", autocommit=True) as conn:
        found = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s", (schema,))
        for (table,) in found.fetchall():
            conn.execute(
                psycopg.sql.SQL("ANALYZE {}.{}").format(
                    psycopg.sql.Identifier(schema), psycopg.sql.Identifier(table)
                )
            )
