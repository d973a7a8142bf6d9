"""A client generated from the OpenAPI document has every operation: the component schemas have
unique names and titles, and ``openapi-python-client`` (a third-party generator, run on
``app.openapi()``) writes a module per operation with no warning."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from api.main import create_app
from api.settings import Settings

METHODS = {"get", "post", "put", "patch", "delete"}
GENERATOR = Path(sys.executable).parent / "openapi-python-client"


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    app = create_app(Settings(data_dir=tmp_path_factory.mktemp("openapi")))
    return app.openapi()


def _operation_ids(document: dict[str, Any]) -> list[str]:
    return [
        operation["operationId"]
        for item in document["paths"].values()
        for method, operation in item.items()
        if method in METHODS
    ]


def test_component_schemas_have_unique_names_and_titles(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    qualified = [name for name in schemas if "__" in name]  # FastAPI's mark of a name clash
    titles = Counter(schema.get("title", name) for name, schema in schemas.items())

    assert qualified == []
    assert [title for title, count in titles.items() if count > 1] == []


def test_openapi_python_client_generates_a_module_per_operation(
    document: dict[str, Any], tmp_path: Path
) -> None:
    spec = tmp_path / "openapi.json"
    spec.write_text(json.dumps(document), "utf-8")
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"post_hooks": []}), "utf-8")  # no formatter run

    done = subprocess.run(
        [
            str(GENERATOR),
            "generate",
            "--path",
            str(spec),
            "--config",
            str(config),
            "--meta",
            "none",
            "--output-path",
            str(tmp_path / "generated"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=tmp_path,
    )

    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "Warning" not in output, output
    assert "Unable" not in output, output
    modules = {path.stem for path in (tmp_path / "generated" / "api").rglob("*.py")}
    expected = {re.sub(r"_+", "_", operation_id) for operation_id in _operation_ids(document)}
    assert expected - modules == set()
