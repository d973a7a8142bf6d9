"""`import provledger` is light and typed: no server, database or text-pipeline modules."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import provledger


def test_importing_the_client_loads_no_server_database_or_text_modules() -> None:
    probe = (
        "import sys, provledger; "
        "print(sorted(m for m in ('fastapi', 'sqlalchemy', 'numpy', 'blingfire', "
        "'eventsourcing', 'api', 'ledger') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)

    assert done.stdout.strip() == "[]"


def test_the_package_is_typed_and_exports_what_it_names() -> None:
    assert (Path(provledger.__file__).parent / "py.typed").is_file()
    assert all(hasattr(provledger, name) for name in provledger.__all__)
