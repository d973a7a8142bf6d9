"""Fixtures shared by every test layer: settings and open ledgers on both backends."""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from api.services import open_ledger
from api.settings import Settings
from ledger.eventlog import signature_pool
from ledger.runtime import LedgerRuntime

# A short lease on remembered API keys (ledger/keys/cache.py): every revocation waits that long
# before it answers. Set here so that the servers tests start as subprocesses use the same.
os.environ.setdefault("PROVLEDGER_KEY_LEASE_MS", "50")

PG_URL = os.environ.get("PROVLEDGER_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
BACKENDS = ["sqlite", "postgres"]


def _pg_connect() -> psycopg.Connection[tuple[object, ...]]:
    try:
        return psycopg.connect(PG_URL, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:  # a real failure, never a skip
        pytest.fail(f"PostgreSQL tests need a server at {PG_URL}: {exc}")


@pytest.fixture
def pg_schema() -> Iterator[str]:
    """A fresh PostgreSQL schema, dropped afterwards (with the search index folder a read
    side without a data dir keeps for it: ``projections.service.default_index_dir``)."""
    schema = f"t_{uuid.uuid4().hex[:12]}"
    yield schema
    with _pg_connect() as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
    for folder in (Path(tempfile.gettempdir()) / "provledger-search").glob(f"*-{schema}"):
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """Runs a test once per storage backend."""
    name: str = request.param
    if name == "postgres":
        request.applymarker(pytest.mark.postgres)
    return name


@pytest.fixture
def settings(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Settings:
    """Settings for a fresh ledger on ``backend`` with its own data dir."""
    database_url = None
    if backend == "postgres":
        schema = request.getfixturevalue("pg_schema")
        database_url = f"{PG_URL}?schema={schema}"
    return Settings(data_dir=tmp_path / "data", database_url=database_url)


@pytest.fixture
def runtime(settings: Settings) -> Iterator[LedgerRuntime]:
    """An open ledger on the parametrised backend."""
    rt = open_ledger(settings)
    yield rt
    rt.close()


@pytest.fixture
def settings_env(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Expose ``settings`` through PROVLEDGER_* variables, as the CLI reads them."""
    monkeypatch.setenv("PROVLEDGER_DATA_DIR", str(settings.data_dir))
    if settings.database_url:
        monkeypatch.setenv("PROVLEDGER_DATABASE_URL", settings.database_url)
    else:
        monkeypatch.delenv("PROVLEDGER_DATABASE_URL", raising=False)
    monkeypatch.delenv("PROVLEDGER_SIGNING_KEY_FILE", raising=False)
    return settings


@pytest.fixture(params=["inline", "worker"])
def signature_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Signatures checked in this process, or by worker processes from the first chunk."""
    if request.param == "worker":
        monkeypatch.setattr(signature_pool, "PARALLEL_AFTER", 0)
        monkeypatch.setattr(signature_pool, "CHUNK", 2)
    return str(request.param)
