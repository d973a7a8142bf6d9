"""Settings from the environment and database URL parsing."""

from __future__ import annotations

from pathlib import Path

import pytest

from api.settings import Settings
from ledger.errors import ConfigurationError, InvalidInput
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


def test_the_database_password_comes_from_its_file_and_replaces_the_urls(tmp_path: Path) -> None:
    secret = tmp_path / "db_password"
    secret.write_text("s3cret:/@?\n")
    settings = Settings(
        database_url="postgresql://provledger:inline@db:5432/ledger?schema=ledger",
        database_password_file=secret,
    )

    database = settings.database()

    assert (database.user, database.password, database.host) == ("provledger", "s3cret:/@?", "db")
    assert "s3cret" not in database.describe()


def test_a_missing_or_empty_secret_file_is_refused_naming_its_variable(tmp_path: Path) -> None:
    url = "postgresql://provledger@db:5432/ledger"
    missing = Settings(database_url=url, database_password_file=tmp_path / "absent")
    (tmp_path / "empty").write_text("\n")
    empty = Settings(database_url=url, database_password_file=tmp_path / "empty")

    with pytest.raises(ConfigurationError, match="PROVLEDGER_DATABASE_PASSWORD_FILE: cannot read"):
        missing.database()
    with pytest.raises(ConfigurationError, match=r"PROVLEDGER_DATABASE_PASSWORD_FILE: .* is empty"):
        empty.database()


def test_the_entailment_api_key_comes_from_its_file_when_one_is_given(tmp_path: Path) -> None:
    (tmp_path / "key").write_text("sk-from-file\n")

    assert Settings(entailment_api_key="inline").entailment_key() == "inline"
    assert (
        Settings(
            entailment_api_key="inline", entailment_api_key_file=tmp_path / "key"
        ).entailment_key()
        == "sk-from-file"
    )
