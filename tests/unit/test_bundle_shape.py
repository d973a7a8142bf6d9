"""The bundle's shape is checked before anything else: each violation names its field."""

from __future__ import annotations

import copy
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

from ledger.audit.bundle.reasons import BundleReason
from ledger.audit.bundle.shape import parse_bundle
from ledger.errors import BundleVerificationError

SHAPE: dict[str, Any] = {
    "format": "provledger.bundle/v1",
    "origin": "provledger.local/ledger",
    "claim": {
        "claim_id": "clm_1",
        "text": "t",
        "bindings": [
            {"span_id": "sp_1", "source_id": "s", "version": 1, "version_hash": "sha256:00"},
            {"span_id": "sp_2", "source_id": None, "version": None, "version_hash": None},
        ],
    },
    "receipt_id": "rcpt_1",
    "spans": [
        {"span_id": "sp_1", "source_id": "s", "version": 1, "start": 0, "end": 1, "text": "t"}
    ],
    "sources": [{"source_id": "s", "version": 1, "version_hash": "h", "frozen_text": "t"}],
    "envelope": {},
    "events": [
        {
            "notification_id": 1,
            "leaf_index": 0,
            "originator_id": "x",
            "originator_version": 1,
            "topic": "t",
            "stored": {},
        }
    ],
    "proofs": [{"leaf_index": 0, "proof": ["AAAA"]}],
    "checkpoint": "note",
    "checkpoint_size": 1,
    "consistency": {"first": 1, "second": 1, "proof": []},
}


def _with(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    document = copy.deepcopy(SHAPE)
    change(document)
    return document


def test_a_well_shaped_bundle_is_read_into_records() -> None:
    bundle = parse_bundle(copy.deepcopy(SHAPE))
    assert bundle.spans[0].end == 1
    assert bundle.proofs == {0: (b"\x00\x00\x00",)}
    assert bundle.consistency is not None
    assert bundle.consistency.proof == ()
    assert len(bundle.bindings) == 2


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["spans"][0].update(start="0"), "bundle.spans[0].start must be an integer"),
        (lambda d: d["spans"][0].update(end=-1), "bundle.spans[0].end must be an integer >= 0"),
        (lambda d: d["sources"].append(3), "bundle.sources[1] must be an object, got int"),
        (lambda d: d.update(events={}), "bundle.events must be a list, got dict"),
        (lambda d: d["events"][0].update(stored=None), "bundle.events[0].stored must be an obj"),
        (
            lambda d: d["claim"]["bindings"][0].update(version=True),
            "bundle.claim.bindings[0].version must be an integer",
        ),
        (
            lambda d: d["proofs"].append({"leaf_index": 0, "proof": []}),
            "bundle.proofs[1].leaf_index repeats leaf 0: one proof per leaf",
        ),
        (lambda d: d["proofs"][0].update(proof=["!!"]), "bundle.proofs[0].proof[0] must be a b"),
        (lambda d: d.update(checkpoint=None), "bundle.checkpoint must be a string, got NoneType"),
        (lambda d: d["consistency"].pop("first"), "bundle.consistency.first must be an integer"),
    ],
    ids=[
        "offset-as-text",
        "negative-offset",
        "source-not-an-object",
        "events-not-a-list",
        "stored-missing",
        "version-a-boolean",
        "two-proofs-for-one-leaf",
        "proof-hash-not-base64",
        "checkpoint-missing",
        "consistency-without-first",
    ],
)
def test_a_misshapen_bundle_is_malformed_naming_the_field(
    change: Callable[[dict[str, Any]], None], message: str
) -> None:
    with pytest.raises(BundleVerificationError) as caught:
        parse_bundle(_with(change))
    assert caught.value.reason is BundleReason.BUNDLE_MALFORMED
    assert caught.value.detail.startswith(message)


def test_a_bundle_that_is_not_an_object_is_malformed() -> None:
    with pytest.raises(BundleVerificationError) as caught:
        parse_bundle([SHAPE])
    assert caught.value.reason is BundleReason.BUNDLE_MALFORMED
    assert caught.value.detail == "bundle must be a JSON object, got list"


def test_the_offline_verifier_imports_no_database_or_web_code() -> None:
    probe = (
        "import sys, ledger.audit.bundle.verify; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'sqlalchemy', 'projections', 'api', 'fastapi', 'starlette', 'psycopg', 'asyncpg'}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
