"""`provledger verify --read-models`: read-model rows edited behind the ledger's back are named
by table and row, although every event still verifies."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from sqlalchemy import Engine, delete, insert, select, update

from api.cli import main
from api.settings import Settings
from ledger.runtime import LedgerRuntime
from projections.database import ReadModelDatabase
from projections.schema import (
    checkpoints,
    claim_bindings,
    memory_versions,
    merkle_leaves,
    merkle_nodes,
    receipt_claims,
    receipts,
    retrieval_spans,
    source_access,
    sources,
    spans,
)
from tests.e2e.flows import commit_verbatim, open_receipt, register

TEXT = "Revenue rose 2.2% to $4.5 million in 2023. The board met twice in 2023."


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


@pytest.fixture
def populated(
    client: TestClient, auth: Any, settings_env: Settings, runtime: LedgerRuntime
) -> dict[str, Any]:
    """A source with spans, a receipt and a committed claim, projected."""
    headers = auth("admin", name="auditor")
    spans_ = register(client, headers, "s", TEXT)
    receipt = open_receipt(client, headers, [spans_[0]["span_id"]])
    claim = commit_verbatim(client, headers, receipt, spans_[0])
    assert client.get(f"/v1/claims/{claim['claim_id']}", headers=headers).status_code == 200
    assert client.get("/v1/audit/checkpoint", headers=headers).status_code == 200
    return claim


@pytest.fixture
def read_models(runtime: LedgerRuntime) -> Iterator[Engine]:
    """The read-model database, to edit as an attacker with write access would."""
    database = ReadModelDatabase.open(runtime.database)
    yield database.sync
    database.close()


def _verify_read_models() -> tuple[int, str]:
    code, output = _run("verify", "--read-models")
    assert output.startswith("OK: "), output  # every event still verifies
    return code, output.splitlines()[-1]


def test_verify_read_models_passes_over_untouched_read_models(populated: dict[str, Any]) -> None:
    code, output = _run("verify", "--read-models")

    assert code == 0, output
    lines = output.splitlines()
    assert lines[1].startswith("OK: read models match the verified events (registry at ")
    assert "checkpoints)" in lines[1]
    assert lines[2].startswith("sha256:")


def test_an_edited_span_text_is_named_by_table_and_row(
    populated: dict[str, Any], read_models: Engine
) -> None:
    with read_models.begin() as conn:
        conn.execute(
            update(spans)
            .where(spans.c.source_id == "s", spans.c.ord == 0)
            .values(text="Revenue fell 9.2% to $4.5 million in 2023.")
        )
    assert _run("verify")[0] == 0  # the events alone do not show it

    code, line = _verify_read_models()

    assert code == 1
    assert line == (
        "FAILED read models: table registry_spans, row (source_id='s', version=1, ord=0): "
        'column text is "Revenue fell 9.2% to $4.5 million in 2023.", the events give '
        '"Revenue rose 2.2% to $4.5 million in 2023."'
    )


def test_a_row_the_events_never_wrote_is_named(
    populated: dict[str, Any], read_models: Engine
) -> None:
    with read_models.begin() as conn:
        row = dict(conn.execute(select(sources)).mappings().one())
        conn.execute(insert(sources).values({**row, "source_id": "t", "aggregate_id": "x"}))

    code, line = _verify_read_models()

    assert code == 1
    assert line == "FAILED read models: table registry_sources, row (source_id='t'): " + (
        "row not in the events"
    )


def test_a_deleted_binding_is_named(populated: dict[str, Any], read_models: Engine) -> None:
    with read_models.begin() as conn:
        conn.execute(delete(claim_bindings))

    code, line = _verify_read_models()

    assert code == 1
    assert line == (
        f"FAILED read models: table claim_bindings, row (claim_id={populated['claim_id']!r}, "
        "ord=0): row missing"
    )


@pytest.mark.parametrize(
    ("table", "values", "named"),
    [
        (receipts, {"actor": "FORGED"}, 'column actor is "FORGED", the events give "u"'),
        (receipts, {"request": "FORGED"}, 'column request is "FORGED", the events give "q"'),
        (receipts, {"expired_at": "2001-01-01T00:00:00.000000Z"}, "column expired_at is"),
        (receipt_claims, {"status": "rejected"}, 'column status is "rejected"'),
        (receipt_claims, {"committed": 0}, "column committed is 0, the events give 1"),
        (claim_bindings, {"source_id": "other"}, 'column source_id is "other"'),
    ],
    ids=["actor", "request", "expiry", "claim-status", "claim-committed", "cited-source"],
)
def test_an_edited_receipt_or_claim_row_is_named_by_table_and_column(
    populated: dict[str, Any], read_models: Engine, table: Any, values: Any, named: str
) -> None:
    with read_models.begin() as conn:
        conn.execute(update(table).values(values))

    code, line = _verify_read_models()

    assert code == 1
    assert line.startswith(f"FAILED read models: table {table.name}, row ("), line
    assert named in line, line


def test_a_flipped_merkle_node_is_named(populated: dict[str, Any], read_models: Engine) -> None:
    with read_models.begin() as conn:
        conn.execute(
            update(merkle_nodes)
            .where(merkle_nodes.c.level == 1, merkle_nodes.c.idx == 0)
            .values(hash=b"\x00" * 32)
        )

    code, line = _verify_read_models()

    assert code == 1
    assert line == (
        "FAILED read models: table merkle_nodes, row (level=1, idx=0): "
        "is not the hash of its two children"
    )


def test_a_flipped_leaf_hash_is_named(populated: dict[str, Any], read_models: Engine) -> None:
    with read_models.begin() as conn:
        conn.execute(
            update(merkle_nodes)
            .where(merkle_nodes.c.level == 0, merkle_nodes.c.idx == 2)
            .values(hash=b"\x01" * 32)
        )

    code, line = _verify_read_models()

    assert code == 1
    assert line == (
        "FAILED read models: table merkle_nodes, row (level=0, idx=2): "
        "is not the leaf hash of event 3"
    )


def test_a_leaf_pointing_at_another_event_is_named(
    populated: dict[str, Any], read_models: Engine
) -> None:
    with read_models.begin() as conn:
        conn.execute(delete(merkle_leaves).where(merkle_leaves.c.leaf_index == 1))

    code, line = _verify_read_models()

    assert code == 1
    assert line.startswith("FAILED read models: table merkle_leaves, row (leaf_index=2): names ")


def test_a_checkpoint_root_edited_apart_from_its_note_is_named(
    populated: dict[str, Any], read_models: Engine
) -> None:
    with read_models.begin() as conn:
        size = conn.execute(select(checkpoints.c.size).limit(1)).scalar_one()
        conn.execute(
            update(checkpoints).where(checkpoints.c.size == size).values(root=b"\x02" * 32)
        )

    code, line = _verify_read_models()

    assert code == 1
    assert line == (
        f"FAILED read models: table checkpoints, row (size={size}): row differs from its "
        "signed note"
    )


def test_a_deleted_merkle_node_is_named(populated: dict[str, Any], read_models: Engine) -> None:
    with read_models.begin() as conn:
        conn.execute(delete(merkle_nodes).where(merkle_nodes.c.level == 1, merkle_nodes.c.idx == 0))

    code, line = _verify_read_models()

    assert code == 1
    assert line == "FAILED read models: table merkle_nodes, row (level=1, idx=0): node missing"


def test_a_node_past_the_tree_is_named(populated: dict[str, Any], read_models: Engine) -> None:
    with read_models.begin() as conn:
        conn.execute(insert(merkle_nodes).values(level=9, idx=0, hash=b"\x03" * 32))

    code, line = _verify_read_models()

    assert code == 1
    assert line == (
        "FAILED read models: table merkle_nodes, row (level=9, idx=0): node past the tree's size"
    )


def test_a_widened_access_row_is_named(
    client: TestClient, auth: Any, settings_env: Settings, read_models: Engine
) -> None:
    headers = auth("admin", name="auditor")
    register(client, headers, "case", TEXT, access={"groups": ["investigations"]})
    with read_models.begin() as conn:
        conn.execute(
            update(source_access)
            .where(source_access.c.source_id == "case")
            .values(access={"groups": ["everyone"]})
        )

    code, line = _verify_read_models()

    assert code == 1
    assert line.startswith("FAILED read models: table registry_access, row (source_id='case', ")
    assert "column access" in line


def test_an_edited_retrieval_span_text_is_named_by_table_and_row(
    populated: dict[str, Any], read_models: Engine, client: TestClient
) -> None:
    client.app.state.services.read_side.retrieval.catch_up()  # type: ignore[attr-defined]
    with read_models.begin() as conn:
        rows = conn.execute(
            update(retrieval_spans)
            .where(retrieval_spans.c.source_id == "s", retrieval_spans.c.ord == 0)
            .values(text="Revenue fell 9.2% to $4.5 million in 2023.")
        ).rowcount
    assert rows == 1  # the retrieval projection had the span

    code, line = _verify_read_models()

    assert code == 1
    assert line.startswith("FAILED read models: table retrieval_spans, row (source_id='s', ")
    assert "column text is" in line


def test_memory_and_usage_rows_are_checked_and_an_edited_expiry_is_named(
    client: TestClient,
    auth: Any,
    settings_env: Settings,
    runtime: LedgerRuntime,
    read_models: Engine,
) -> None:
    headers = auth("admin", name="auditor")
    spans_ = register(client, headers, "s", TEXT)
    kept = {
        "memory_id": "mem_kept",
        "purpose": "p",
        "scope": {},
        "source": [spans_[0]["span_id"]],
        "text": "Revenue rose.",
        "expires_at": "2999-01-01T00:00:00Z",
    }
    assert client.post("/v1/memory", json=kept, headers=headers).status_code == 201
    receipt = open_receipt(client, headers, [spans_[0]["span_id"]], memory=["mem_kept"])
    usage = {"input_tokens": 5, "cache_read_input_tokens": 2048}
    recorded = client.post(f"/v1/receipts/{receipt}/usage", json=usage, headers=headers)
    assert recorded.status_code == 201, recorded.text
    client.get("/v1/receipts", headers=headers)  # the receipts read model is caught up
    client.get("/v1/memory", headers=headers)  # and the registry's, memory included
    code, output = _run("verify", "--read-models")
    assert code == 0, output

    # Pushing an item's expiry out would keep the sweep from expiring its receipts.
    with read_models.begin() as conn:
        edited = conn.execute(
            update(memory_versions).values(expires_at="9999-01-01T00:00:00.000000Z")
        )
    assert edited.rowcount == 1
    code, line = _verify_read_models()

    assert code == 1
    assert "table memory_versions" in line, line
    assert "mem_kept" in line, line
