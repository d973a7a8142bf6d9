"""``api/`` runs no SQL: its queries live in ``projections/`` (or behind a port in ``ledger/``),
so no module of it imports a SQL library or a database driver."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SQL = frozenset({"sqlalchemy", "sqlite3", "asyncpg", "psycopg", "psycopg2", "psycopg_pool"})


def _imported(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_the_reader_sees_an_import_of_a_driver_anywhere_in_a_module(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    import asyncpg.pool\n    from sqlalchemy import select\n")
    assert _imported(module) & SQL == {"asyncpg", "sqlalchemy"}


def test_no_api_module_imports_a_sql_library_or_driver() -> None:
    offending = {
        str(path.relative_to(ROOT)): sorted(_imported(path) & SQL)
        for path in sorted((ROOT / "api").rglob("*.py"))
        if _imported(path) & SQL
    }
    assert offending == {}
