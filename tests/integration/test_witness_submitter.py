"""The service's witness submitter on both backends, against an in-process witness.

The witness is the real :class:`~ledger.audit.witness.Witness` over a data directory; only the HTTP
hop is left out (the e2e tests run it as a process).
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from api.settings import Settings
from ledger.audit.witness import Witness, format_add_checkpoint
from ledger.audit.witness_store import WitnessDataDir
from ledger.crypto.checkpoint import Checkpoint, sign_note, vkey
from ledger.crypto.cosignature import WitnessKey
from ledger.crypto.merkle import leaf_hash, root_hash
from ledger.crypto.signing import SigningKey
from ledger.errors import ConfigurationError
from ledger.runtime import LedgerRuntime
from processes.witness_submitter import WitnessSubmitter
from projections.service import ReadSide


class InProcessWitness:
    """The submitter's view of a witness, calling it directly."""

    def __init__(self, witness: Witness, before: Callable[[], None] | None = None) -> None:
        self.witness = witness
        self.requests: list[int] = []
        self.before = before

    def add_checkpoint(self, old_size: int, proof: Sequence[bytes], note: str) -> str:
        self.requests.append(old_size)
        if self.before is not None:
            before, self.before = self.before, None
            before()
        return self.witness.add_checkpoint(format_add_checkpoint(old_size, proof, note))

    def close(self) -> None:
        return None


@pytest.fixture
def witness_dir(runtime: LedgerRuntime, settings: Settings, tmp_path: Path) -> WitnessDataDir:
    directory = WitnessDataDir(tmp_path / "witness")
    log_key = vkey(settings.log_origin, runtime.ledger.signing_key.public_key)
    directory.init("witness.example/w1", [log_key])
    return directory


@pytest.fixture
def read_side(runtime: LedgerRuntime, settings: Settings) -> Iterator[ReadSide]:
    for name in ("a", "b", "c", "d"):
        runtime.api_keys.issue(name, ["read"], "t")
    side = ReadSide(runtime.ledger, runtime.database, settings.log_origin)
    side.catch_up()
    yield side
    side.close()


def _seed(witness: Witness, runtime: LedgerRuntime, origin: str, leaves: list[bytes]) -> None:
    """The witness cosigned a checkpoint of ``leaves`` signed with the ledger's key."""
    checkpoint = Checkpoint(origin, len(leaves), root_hash(leaves))
    note = sign_note(checkpoint, origin, runtime.ledger.signing_key)
    witness.add_checkpoint(format_add_checkpoint(0, [], note))


def _leaves(runtime: LedgerRuntime) -> list[bytes]:
    return [leaf_hash(n.state) for n in runtime.ledger.read_log(0, 100)]


def _submitter(
    read_side: ReadSide, client: InProcessWitness, key: WitnessKey, settings: Settings
) -> WitnessSubmitter:
    return WitnessSubmitter(read_side.db.sync, client, key, settings.log_origin)


def test_the_submitter_learns_the_witness_size_and_sends_a_consistency_proof(
    runtime: LedgerRuntime, settings: Settings, read_side: ReadSide, witness_dir: WitnessDataDir
) -> None:
    witness = witness_dir.open()
    _seed(witness, runtime, settings.log_origin, _leaves(runtime)[:2])
    client = InProcessWitness(witness)
    submitter = _submitter(read_side, client, witness_dir.public_key(), settings)

    submitter.run_once()
    submitter.run_once()  # already cosigned: nothing is sent

    assert client.requests == [0, 2]  # a 409 taught it size 2
    assert submitter.status.state == "cosigned"
    assert submitter.status.witnessed_size == 4
    assert witness_dir.open().store.load(settings.log_origin).size == 4  # type: ignore[union-attr]


def test_a_newer_checkpoint_submitted_by_another_process_is_not_taken_for_a_rollback(
    runtime: LedgerRuntime, settings: Settings, read_side: ReadSide, witness_dir: WitnessDataDir
) -> None:
    witness = witness_dir.open()
    key = witness_dir.public_key()

    def another_process_goes_first() -> None:
        runtime.api_keys.issue("e", ["read"], "t")
        read_side.catch_up()
        _submitter(read_side, InProcessWitness(witness), key, settings).run_once()

    client = InProcessWitness(witness, before=another_process_goes_first)
    submitter = _submitter(read_side, client, key, settings)

    submitter.run_once()  # it read size 4; the witness is at 5 by the time it asks

    assert client.requests == [0, 5]
    assert (submitter.status.state, submitter.status.witnessed_size) == ("cosigned", 5)


def test_a_witness_that_cosigned_a_longer_log_refuses_the_rolled_back_one(
    runtime: LedgerRuntime, settings: Settings, read_side: ReadSide, witness_dir: WitnessDataDir
) -> None:
    witness = witness_dir.open()
    _seed(witness, runtime, settings.log_origin, [*_leaves(runtime), leaf_hash(b"lost")])
    submitter = _submitter(read_side, InProcessWitness(witness), witness_dir.public_key(), settings)

    submitter.run_once()

    assert submitter.status.state == "refused"
    assert submitter.status.reason == "rollback"
    assert submitter.status.detail == (
        "the witness cosigned size 5 but the log's newest checkpoint has size 4: "
        "the log was rolled back or truncated"
    )
    assert submitter.cosignature_for(4, root_hash(_leaves(runtime))) is None


def test_a_witness_that_cosigned_another_root_reports_a_fork(
    runtime: LedgerRuntime, settings: Settings, read_side: ReadSide, witness_dir: WitnessDataDir
) -> None:
    witness = witness_dir.open()
    _seed(witness, runtime, settings.log_origin, [leaf_hash(f"x{i}".encode()) for i in range(4)])
    submitter = _submitter(read_side, InProcessWitness(witness), witness_dir.public_key(), settings)

    submitter.run_once()

    assert (submitter.status.state, submitter.status.reason) == ("refused", "fork")


def test_a_cosignature_from_an_unexpected_key_is_not_kept(
    runtime: LedgerRuntime, settings: Settings, read_side: ReadSide, witness_dir: WitnessDataDir
) -> None:
    expected = WitnessKey("witness.example/w1", SigningKey.generate().public_key)
    submitter = _submitter(read_side, InProcessWitness(witness_dir.open()), expected, settings)

    submitter.run_once()

    assert (submitter.status.state, submitter.status.reason) == ("refused", "bad_cosignature")
    assert submitter.cosignature_for(4, root_hash(_leaves(runtime))) is None


def _unused_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def test_an_unreachable_witness_leaves_the_service_ready_and_the_checkpoint_uncosigned(
    runtime: LedgerRuntime, settings: Settings, witness_dir: WitnessDataDir
) -> None:
    configured = settings.model_copy(
        update={
            "witness_url": _unused_url(),
            "witness_vkey": witness_dir.public_key().vkey,
            "background": False,
        }
    )
    secret = runtime.api_keys.issue("auditor", ["audit:read"], "t")
    with TestClient(create_app(configured, runtime)) as client:
        response = client.get("/v1/audit/checkpoint", headers={"Authorization": f"Bearer {secret}"})
        ready = client.get("/readyz")

    assert response.status_code == 200
    assert response.headers["X-Witness-State"] == "unavailable"
    assert response.text.count("\u2014 ") == 1  # the log's signature only
    assert ready.status_code == 200
    assert ready.json()["witness"]["state"] == "unavailable"
    assert ready.json()["witness"]["reason"] == "witness_unavailable"


def test_readyz_is_503_when_the_witness_refused_the_log(
    runtime: LedgerRuntime, settings: Settings, read_side: ReadSide, witness_dir: WitnessDataDir
) -> None:
    witness = witness_dir.open()
    _seed(witness, runtime, settings.log_origin, [*_leaves(runtime), leaf_hash(b"lost")])
    configured = settings.model_copy(update={"background": False})
    with TestClient(create_app(configured, runtime)) as client:
        client.app.state.services.witness = _submitter(  # type: ignore[attr-defined]
            read_side, InProcessWitness(witness), witness_dir.public_key(), settings
        )
        client.app.state.services.witness.run_once()  # type: ignore[attr-defined]
        ready = client.get("/readyz")

    assert ready.status_code == 503
    body = ready.json()
    assert body["type"].endswith("/witness-refused")
    assert body["detail"].startswith("the witness refused the log: the witness cosigned size 5")
    assert body["witness"]["reason"] == "rollback"


def test_a_witness_url_without_its_verifier_key_is_a_configuration_error(
    runtime: LedgerRuntime, settings: Settings
) -> None:
    configured = settings.model_copy(update={"witness_url": "http://127.0.0.1:9"})
    with (
        pytest.raises(
            ConfigurationError, match="PROVLEDGER_WITNESS_URL needs PROVLEDGER_WITNESS_VKEY"
        ),
        TestClient(create_app(configured, runtime)),
    ):
        pass
