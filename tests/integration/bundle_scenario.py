"""A real citation-chain bundle from the running service, and the tools to forge one.

The scenario, on either backend: an API key is issued and the first checkpoint saved (the
auditor's earlier view); source ``memo`` is registered; a receipt is opened over both of its
spans and three claims are committed one at a time (the second, on the revenue sentence, is
the audited claim); a second receipt commits one claim. The bundle of the audited claim is
fetched with a consistency proof from the saved checkpoint.

The receipt's events are therefore: opened (v1), claims committed (v2, v3 = the audited
claim, v4). The source's are: registered (v1), version added (v2).
"""

from __future__ import annotations

import base64
import copy
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi.testclient import TestClient

from api.main import create_app
from api.settings import Settings
from ledger.crypto.canonical import canonical_json
from ledger.crypto.checkpoint import Checkpoint, parse_note, sign_note
from ledger.crypto.merkle import consistency_proof, inclusion_proof, leaf_hash, root_hash
from ledger.crypto.signing import Keyring, SigningKey
from ledger.eventlog.envelope import open_state, seal
from ledger.runtime import LedgerRuntime
from ledger.text.spans import span_id_for

TEXT = "Revenue rose 0.2% to $4.5 million in 2023. The board met twice in 2023."
ORIGINAL, FORGED = "rose 0.2%", "fell 9.2%"  # same length: offsets stay valid


@dataclass(repr=False)
class Scenario:
    """The untampered bundle and everything an attacker or a test needs around it."""

    bundle: dict[str, Any]
    previous: str
    keyring: Keyring
    ledger_key: SigningKey
    leaves: list[bytes]
    other_envelope: dict[str, Any]


@dataclass
class Forgery:
    """What the verifier is handed: a bundle and the auditor's earlier checkpoint."""

    bundle: dict[str, Any]
    previous: str


def build_scenario(settings: Settings, runtime: LedgerRuntime) -> Scenario:
    """Run the scenario through the HTTP API and return its bundle."""
    secret = runtime.api_keys.issue("auditor", ["admin"], "test:suite")
    headers = {"Authorization": f"Bearer {secret}"}
    with TestClient(create_app(settings, runtime), raise_server_exceptions=False) as client:
        previous = _ok(client.get("/v1/audit/checkpoint", headers=headers)).text
        source = {"source_id": "memo", "title": "Memo", "authority": "derived", "text": TEXT}
        spans = _ok(client.post("/v1/sources", json=source, headers=headers)).json()["spans"]
        revenue, board = spans[0], spans[1]
        receipt = _open(client, headers, [revenue["span_id"], board["span_id"]], "q1")
        _commit(client, headers, receipt, board)
        claim = _commit(client, headers, receipt, revenue)
        _commit(client, headers, receipt, board)
        other = _open(client, headers, [board["span_id"]], "q2")
        other_claim = _commit(client, headers, other, board)
        other_bundle = _ok(
            client.get(f"/v1/claims/{other_claim['claim_id']}/bundle", headers=headers)
        ).json()
        size = parse_note(previous)[0].size
        bundle = _ok(
            client.get(
                f"/v1/claims/{claim['claim_id']}/bundle",
                params={"since_size": size},
                headers=headers,
            )
        ).json()
        keyring = Keyring.from_json(_ok(client.get("/v1/keys")).json())
    leaves = [row.state for row in runtime.ledger.read_log(0, bundle["checkpoint_size"])]
    return Scenario(
        bundle=bundle,
        previous=previous,
        keyring=keyring,
        ledger_key=runtime.ledger.signing_key,
        leaves=leaves,
        other_envelope=other_bundle["envelope"],
    )


def _ok(response: Any) -> Any:
    assert response.status_code in (200, 201), response.text
    return response


def _open(client: TestClient, headers: dict[str, str], evidence: list[str], request: str) -> str:
    body = {
        "request": request,
        "actor": "u",
        "purpose": "p",
        "policy_version": "default",
        "route": "long_context",
        "model": {"name": "m", "version": "1"},
        "evidence": evidence,
    }
    receipt_id: str = _ok(client.post("/v1/receipts", json=body, headers=headers)).json()[
        "receipt_id"
    ]
    return receipt_id


def _commit(
    client: TestClient, headers: dict[str, str], receipt_id: str, span: dict[str, Any]
) -> dict[str, Any]:
    body = {"claims": [{"text": span["text"], "bindings": [{"span_id": span["span_id"]}]}]}
    response = client.post(f"/v1/receipts/{receipt_id}/claims", json=body, headers=headers)
    claim: dict[str, Any] = _ok(response).json()["committed"][0]
    return claim


# Tools for forging.


def fresh(scenario: Scenario) -> Forgery:
    """A deep copy of the untampered bundle with the saved checkpoint."""
    return Forgery(copy.deepcopy(scenario.bundle), scenario.previous)


def event(bundle: dict[str, Any], topic: str, ordinal: int = 0) -> dict[str, Any]:
    """The ``ordinal``-th event of ``topic`` in the bundle (receipt events are of the audited
    receipt only: the bundle carries no other)."""
    found: dict[str, Any] = [e for e in bundle["events"] if e["topic"] == topic][ordinal]
    return found


def receipt_event(bundle: dict[str, Any], version: int) -> dict[str, Any]:
    """The audited receipt's event at ``version``."""
    return next(
        e
        for e in bundle["events"]
        if e["topic"].startswith("provledger.receipt.") and e["originator_version"] == version
    )


def version_hash(text: str) -> str:
    """A version hash as the registry computes it."""
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def rewrite_source(bundle: dict[str, Any]) -> str:
    """Rewrite the frozen text and the bound span's text ("rose 0.2%" -> "fell 9.2%");
    returns the new text."""
    source = bundle["sources"][0]
    source["frozen_text"] = source["frozen_text"].replace(ORIGINAL, FORGED)
    span = bundle["spans"][0]
    span["text"] = span["text"].replace(ORIGINAL, FORGED)
    return str(source["frozen_text"])


def recompute_evidence(bundle: dict[str, Any]) -> str:
    """The forgery of issue 13: text rewritten, its version hash and the span ids recomputed,
    and the bundle's claim made to name them. Returns the new version hash."""
    text = rewrite_source(bundle)
    new_hash = version_hash(text)
    bundle["sources"][0]["version_hash"] = new_hash
    span = bundle["spans"][0]
    span["span_id"] = span_id_for(span["source_id"], new_hash, span["start"], span["end"])
    binding = bundle["claim"]["bindings"][0]
    binding.update(span_id=span["span_id"], version_hash=new_hash)
    return new_hash


def forge_body(entry: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> None:
    """Edit an event's signed body in place, keeping its signature."""
    change(entry["stored"]["body"])


def resign(
    entry: dict[str, Any], key: SigningKey, change: Callable[[dict[str, Any]], None]
) -> None:
    """Edit an event's body and sign it again with ``key``."""
    body = copy.deepcopy(entry["stored"]["body"])
    change(body)
    prev = body["prev"]
    sealed = seal(
        key,
        originator_id=body["originator_id"],
        originator_version=body["originator_version"],
        topic=body["topic"],
        recorded_at=body["recorded_at"],
        actor=body["actor"],
        payload=body["payload"],
        prev=None if prev is None else bytes.fromhex(prev.removeprefix("sha256:")),
    )
    entry["stored"] = sealed.to_json()


def as_compromised_ledger(
    scenario: Scenario,
    forgery: Forgery,
    entry: dict[str, Any],
    change: Callable[[dict[str, Any]], None],
) -> None:
    """What only a holder of the ledger's own key can forge: edit one event's body, sign it
    and every later event of its aggregate again (so the chain holds), put the new events in
    the log, sign a new checkpoint over it and give every event a fresh inclusion proof.

    The verifier must still refuse such a bundle when the forged event disagrees with the
    other signed statements in it.
    """
    bundle = forgery.bundle
    key = scenario.ledger_key
    resign(entry, key, change)
    aggregate = entry["originator_id"]
    later = sorted(
        (e for e in bundle["events"] if e["originator_id"] == aggregate),
        key=lambda e: e["originator_version"],
    )
    head = open_state(canonical_json(entry["stored"])).event_hash
    for following in later:
        if following["originator_version"] <= entry["originator_version"]:
            continue
        link = "sha256:" + head.hex()
        resign(following, key, lambda body, link=link: body.update(prev=link))
        head = open_state(canonical_json(following["stored"])).event_hash
    leaves = list(scenario.leaves)
    for e in bundle["events"]:
        leaves[e["leaf_index"]] = canonical_json(e["stored"])
    hashes = [leaf_hash(leaf) for leaf in leaves]
    origin = bundle["origin"]
    checkpoint = Checkpoint(origin, len(hashes), root_hash(hashes))
    bundle["checkpoint"] = sign_note(checkpoint, origin, key)
    bundle["proofs"] = [
        {"leaf_index": e["leaf_index"], "proof": _b64(inclusion_proof(hashes, e["leaf_index"]))}
        for e in bundle["events"]
    ]
    first = bundle["consistency"]["first"]
    bundle["consistency"]["proof"] = _b64(consistency_proof(hashes, first))


def _b64(hashes: list[bytes]) -> list[str]:
    return [base64.b64encode(h).decode() for h in hashes]
