"""Every third-party module the service imports is a declared runtime dependency.

Development extras (test client, property testing, PROV) are installed in CI, so a runtime
import of one of them would pass every test and still fail on a production install.
"""

from __future__ import annotations

import ast
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("ledger", "api", "projections", "processes")
# Import name -> distribution name, where they differ.
DISTRIBUTION_OF = {
    "nacl": "pynacl",
    "yaml": "pyyaml",
    "markdown_it": "markdown-it-py",
    "prometheus_client": "prometheus-client",
    "opentelemetry": "opentelemetry-api",
}
# Modules that come with a declared distribution rather than as their own.
PROVIDED_BY = {"starlette": "fastapi", "psycopg_pool": "eventsourcing", "uvicorn": "uvicorn"}


def _declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = set()
    for requirement in project["dependencies"]:
        name = requirement.split(";")[0]
        for stop in "<>=![ ":
            name = name.split(stop)[0]
        names.add(name.strip().lower())
    return names


def _imports() -> dict[str, str]:
    found: dict[str, str] = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    modules = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    modules = [node.module]
                else:
                    continue
                for module in modules:
                    top = module.split(".")[0]
                    if top not in sys.stdlib_module_names and top not in PACKAGES:
                        found.setdefault(top, str(path.relative_to(ROOT)))
    return found


def test_every_runtime_import_is_a_declared_dependency() -> None:
    declared = _declared()
    missing = {
        module: where
        for module, where in _imports().items()
        if DISTRIBUTION_OF.get(module, PROVIDED_BY.get(module, module)).lower().replace("_", "-")
        not in {name.replace("_", "-") for name in declared}
    }
    assert missing == {}, f"imported but not in [project.dependencies]: {missing}"
