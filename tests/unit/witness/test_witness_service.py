"""The witness's data directory, durable state and HTTP protocol (C2SP tlog-witness)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi.testclient import TestClient

from api.witness_app import TLOG_SIZE, create_witness_app
from ledger.audit.witness import WitnessRefusal, format_add_checkpoint
from ledger.audit.witness_store import WitnessDataDir
from ledger.crypto.checkpoint import Checkpoint, sign_note, vkey
from ledger.crypto.cosignature import add_signature_lines, verify_cosignature
from ledger.crypto.merkle import consistency_proof, leaf_hash, root_hash
from ledger.crypto.signing import SigningKey
from ledger.errors import ConfigurationError, WitnessError

ORIGIN = "ledger.example/log"
LOG_KEY = SigningKey(Ed25519PrivateKey.from_private_bytes(bytes(range(32))))
LEAVES = [leaf_hash(f"entry {i}".encode()) for i in range(9)]
FORKED = [leaf_hash(f"forged {i}".encode()) for i in range(9)]


def _note(size: int, leaves: list[bytes] = LEAVES) -> str:
    return sign_note(Checkpoint(ORIGIN, size, root_hash(leaves[:size])), ORIGIN, LOG_KEY)


def _body(old: int, size: int, leaves: list[bytes] = LEAVES) -> bytes:
    proof = consistency_proof(leaves[:size], old) if 0 < old < size else []
    return format_add_checkpoint(old, proof, _note(size, leaves))


@pytest.fixture
def data_dir(tmp_path: Path) -> WitnessDataDir:
    directory = WitnessDataDir(tmp_path / "witness")
    directory.init("witness.example/w1", [vkey(ORIGIN, LOG_KEY.public_key)])
    return directory


def test_init_refuses_to_replace_an_existing_witness_key(data_dir: WitnessDataDir) -> None:
    with pytest.raises(ConfigurationError, match="a witness key is never replaced"):
        data_dir.init("witness.example/w1", [])


def test_a_witness_that_knows_no_log_refuses_to_open(tmp_path: Path) -> None:
    directory = WitnessDataDir(tmp_path / "empty")
    directory.init("witness.example/w1", [])
    with pytest.raises(ConfigurationError, match="names no log: add one with"):
        directory.open()


def test_a_cosignature_is_returned_only_after_the_state_is_on_disk(
    data_dir: WitnessDataDir,
) -> None:
    witness = data_dir.open()
    line = witness.add_checkpoint(_body(0, 5), now=100)
    cosigned = verify_cosignature(add_signature_lines(_note(5), line), data_dir.public_key())
    assert (cosigned.checkpoint.size, cosigned.timestamp) == (5, 100)
    stored = json.loads(next((data_dir.path / "state").glob("*.json")).read_text())
    assert (stored["origin"], stored["size"], stored["cosignature"]) == (ORIGIN, 5, line)


def test_a_restarted_witness_still_refuses_a_rollback_and_a_fork(
    data_dir: WitnessDataDir,
) -> None:
    data_dir.open().add_checkpoint(_body(0, 5))
    data_dir.open().add_checkpoint(_body(5, 9))
    restarted = data_dir.open()
    with pytest.raises(WitnessError) as rollback:
        restarted.add_checkpoint(_body(9, 5))
    assert rollback.value.reason is WitnessRefusal.ROLLBACK
    with pytest.raises(WitnessError) as fork:
        restarted.add_checkpoint(_body(9, 9, FORKED))
    assert fork.value.reason is WitnessRefusal.FORK
    assert fork.value.size == 9


def test_cosignature_timestamps_never_go_backwards(data_dir: WitnessDataDir) -> None:
    witness = data_dir.open()
    witness.add_checkpoint(_body(0, 5), now=200)
    line = witness.add_checkpoint(_body(5, 9), now=150)
    assert (
        verify_cosignature(add_signature_lines(_note(9), line), data_dir.public_key()).timestamp
        == 200
    )


def test_a_damaged_state_file_stops_the_witness_instead_of_resetting_it(
    data_dir: WitnessDataDir,
) -> None:
    data_dir.open().add_checkpoint(_body(0, 5))
    next((data_dir.path / "state").glob("*.json")).write_text("{")
    with pytest.raises(ConfigurationError, match="is damaged"):
        data_dir.open().add_checkpoint(_body(5, 9))


@pytest.fixture
def http(data_dir: WitnessDataDir) -> TestClient:
    return TestClient(create_witness_app(data_dir.open()))


def test_add_checkpoint_answers_200_with_one_cosignature_line(
    http: TestClient, data_dir: WitnessDataDir
) -> None:
    response = http.post("/add-checkpoint", content=_body(0, 5))
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert response.text.count("\n") == 1
    verify_cosignature(add_signature_lines(_note(5), response.text), data_dir.public_key())


def test_a_stale_old_size_gets_409_with_the_witness_size(http: TestClient) -> None:
    http.post("/add-checkpoint", content=_body(0, 5))
    response = http.post("/add-checkpoint", content=_body(0, 9))
    assert response.status_code == 409
    assert response.headers["content-type"].startswith(TLOG_SIZE)
    assert response.text == "5\n"


@pytest.mark.parametrize(
    ("body", "status", "slug"),
    [
        pytest.param(b"old x\n\n", 400, "malformed-request", id="malformed"),
        pytest.param(_body(9, 5), 400, "rollback", id="rollback"),
        pytest.param(
            format_add_checkpoint(5, consistency_proof(FORKED, 5), _note(9, FORKED)),
            422,
            "bad-proof",
            id="forked-extension",
        ),
        pytest.param(
            format_add_checkpoint(
                0,
                [],
                sign_note(
                    Checkpoint(ORIGIN, 5, root_hash(LEAVES[:5])), ORIGIN, SigningKey.generate()
                ),
            ),
            403,
            "not-signed-by-log",
            id="bad-log-signature",
        ),
        pytest.param(
            format_add_checkpoint(
                0,
                [],
                sign_note(Checkpoint("x.example/log", 1, LEAVES[0]), "x.example/log", LOG_KEY),
            ),
            404,
            "unknown-log",
            id="unknown-origin",
        ),
    ],
)
def test_refusals_get_the_status_the_spec_names(
    http: TestClient, body: bytes, status: int, slug: str
) -> None:
    http.post("/add-checkpoint", content=_body(0, 5))
    response = http.post("/add-checkpoint", content=body)
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["type"].endswith("/" + slug)


def test_a_fork_at_the_same_size_gets_409(http: TestClient) -> None:
    http.post("/add-checkpoint", content=_body(0, 5))
    response = http.post("/add-checkpoint", content=_body(5, 5, FORKED))
    assert (response.status_code, response.text) == (409, "5\n")


def test_an_oversized_body_gets_413_before_it_is_parsed(http: TestClient) -> None:
    response = http.post("/add-checkpoint", content=b"old 0\n\n" + b"x" * 70_000)
    assert response.status_code == 413
    assert "at most 65536 bytes" in response.json()["detail"]


def test_the_newest_cosigned_checkpoint_is_served_with_its_cosignature(
    http: TestClient, data_dir: WitnessDataDir
) -> None:
    assert http.get("/checkpoint", params={"origin": ORIGIN}).status_code == 404
    http.post("/add-checkpoint", content=_body(0, 5))
    line = http.post("/add-checkpoint", content=_body(5, 9)).text
    response = http.get("/checkpoint", params={"origin": ORIGIN})
    assert response.status_code == 200
    assert response.text == _note(9) + line
    assert verify_cosignature(response.text, data_dir.public_key()).checkpoint.size == 9


def test_a_missing_origin_gets_a_problem_naming_the_field(http: TestClient) -> None:
    response = http.get("/checkpoint")
    assert response.status_code == 422
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["errors"][0]["field"] == "query.origin"


def test_a_rotated_log_key_is_refused_until_the_witness_is_told_of_it(
    data_dir: WitnessDataDir,
) -> None:
    data_dir.open().add_checkpoint(_body(0, 5))
    rotated = SigningKey.generate()
    checkpoint = Checkpoint(ORIGIN, 9, root_hash(LEAVES))
    body = format_add_checkpoint(
        5, consistency_proof(LEAVES, 5), sign_note(checkpoint, ORIGIN, rotated)
    )
    with pytest.raises(WitnessError) as refused:
        data_dir.open().add_checkpoint(body)
    assert refused.value.reason is WitnessRefusal.NOT_SIGNED_BY_LOG

    data_dir.add_log(vkey(ORIGIN, rotated.public_key))

    line = data_dir.open().add_checkpoint(body)
    assert (
        verify_cosignature(
            add_signature_lines(sign_note(checkpoint, ORIGIN, rotated), line), data_dir.public_key()
        ).checkpoint
        == checkpoint
    )
