"""Settings from the environment and database URL parsing."""

from __future__ import annotations

from pathlib import Path

import pytest

from api.settings import Settings
from ledger.errors import InvalidInput
from ledger.eventlog.database import parse_database_url


def test_defaults_to_sqlite_files_in_the_data_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PROVLEDGER_DATABASE_URL", raising=False)
    monkeypatch.setenv("PROVLEDGER_DATA_DIR", "/srv/ledger")
    database = Settings().database()
    assert database.kind == "sqlite"
    assert database.sqlite_path == Path("/srv/ledger/ledger.sqlite3")
    assert database.eventsourcing_env()["PERSISTENCE_MODULE"] == "eventsourcing.sqlite"


def test_a_postgresql_url_selects_postgresql() -> None:
    database = parse_database_url("postgresql://app:s3cret@db.internal:6543/ledger?schema=prov")
    env = database.eventsourcing_env()
    assert env["PERSISTENCE_MODULE"] == "eventsourcing.postgres"
    assert (env["POSTGRES_HOST"], env["POSTGRES_PORT"]) == ("db.internal", "6543")
    assert (env["POSTGRES_DBNAME"], env["POSTGRES_SCHEMA"]) == ("ledger", "prov")
    assert "s3cret" not in database.describe()


@pytest.mark.parametrize(
    ("url", "rule"),
    [
        ("mysql://x/y", "scheme"),
        ("postgresql://host/", "dbname"),
        ("postgresql://h/db?schema=a;drop", "schema"),
        ("sqlite:///", "sqlite-path"),
    ],
)
def test_rejects_unusable_database_urls(url: str, rule: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_database_url(url)
    assert (caught.value.field, caught.value.rule) == ("database_url", rule)
