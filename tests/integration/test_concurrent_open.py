"""Several processes opening one PostgreSQL ledger at the same moment (an API server and a
projection runner started together, several API workers): each construction of the ledger
creates its tables and functions if they do not exist, and PostgreSQL refuses two sessions
replacing the same catalogue rows at once (``tuple concurrently updated``). Opening must
wait its turn instead of failing."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from api.services import open_ledger
from api.settings import Settings
from tests.conftest import PG_URL

pytestmark = pytest.mark.postgres


@pytest.mark.parametrize("fresh", [True, False], ids=["fresh schema", "existing tables"])
def test_six_openings_at_once_all_succeed(pg_schema: str, tmp_path: Path, fresh: bool) -> None:
    settings = Settings(data_dir=tmp_path / "data", database_url=f"{PG_URL}?schema={pg_schema}")
    if not fresh:
        open_ledger(settings).close()
    start = threading.Barrier(6)
    errors: list[BaseException] = []

    def open_once() -> None:
        start.wait()
        try:
            open_ledger(settings).close()
        except BaseException as exc:  # every failure is the finding
            errors.append(exc)

    threads = [threading.Thread(target=open_once) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
