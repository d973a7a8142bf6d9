"""The bundle tamper corpus: named forgeries of a real bundle, each with the reason the
verifier must give and what its message must say.

Every mutation starts from :func:`tests.integration.bundle_scenario.fresh` (a deep copy of
the bundle the service produced) and simulates one forgery; ``VECTORS`` holds one per reason
code, ``REPORTED`` the forgeries issue 13 found VERIFIED before this verifier.
"""

from __future__ import annotations

import base64
import copy
from collections.abc import Callable

from ledger.audit.bundle.verify import BundleReason
from ledger.crypto.checkpoint import Checkpoint, parse_note, sign_note
from ledger.crypto.signing import SigningKey
from tests.integration.bundle_scenario import (
    FORGED,
    ORIGINAL,
    Forgery,
    Scenario,
    as_compromised_ledger,
    event,
    forge_body,
    receipt_event,
    recompute_evidence,
    resign,
    rewrite_source,
    version_hash,
)

R = BundleReason
VERSION_ADDED = "provledger.source.version_added"
ATTACKER = SigningKey.generate()


Mutation = Callable[[Scenario, Forgery], None]


def _set(key: str, value: object) -> Mutation:
    def change(s: Scenario, f: Forgery) -> None:
        f.bundle[key] = value

    return change


def _untrusted_checkpoint(s: Scenario, f: Forgery) -> None:
    checkpoint = parse_note(f.bundle["checkpoint"])[0]
    f.bundle["checkpoint"] = sign_note(checkpoint, f.bundle["origin"], ATTACKER)


def _alter_root(s: Scenario, f: Forgery) -> None:
    lines = f.bundle["checkpoint"].split("\n")
    root = bytearray(base64.b64decode(lines[2]))
    root[0] ^= 0x01
    lines[2] = base64.b64encode(bytes(root)).decode()
    f.bundle["checkpoint"] = "\n".join(lines)


def _previous_untrusted(s: Scenario, f: Forgery) -> None:
    f.previous = sign_note(parse_note(f.previous)[0], f.bundle["origin"], ATTACKER)


def _previous_newer(s: Scenario, f: Forgery) -> None:
    checkpoint = parse_note(f.bundle["checkpoint"])[0]
    later = Checkpoint(checkpoint.origin, checkpoint.size + 5, checkpoint.root)
    f.previous = sign_note(later, checkpoint.origin, s.ledger_key)


def _previous_forked(s: Scenario, f: Forgery) -> None:
    checkpoint = parse_note(f.bundle["checkpoint"])[0]
    fork = Checkpoint(checkpoint.origin, checkpoint.size, b"\x07" * 32)
    f.previous = sign_note(fork, checkpoint.origin, s.ledger_key)


def _flip_consistency(s: Scenario, f: Forgery) -> None:
    proof = f.bundle["consistency"]["proof"]
    raw = bytearray(base64.b64decode(proof[0]))
    raw[0] ^= 0x01
    proof[0] = base64.b64encode(bytes(raw)).decode()


def _break_stored_form(s: Scenario, f: Forgery) -> None:
    del receipt_event(f.bundle, 1)["stored"]["signature"]


def _relabel_entry(s: Scenario, f: Forgery) -> None:
    receipt_event(f.bundle, 2)["originator_version"] = 7


def _drop_event(version: int) -> Mutation:
    def change(s: Scenario, f: Forgery) -> None:
        f.bundle["events"].remove(receipt_event(f.bundle, version))

    return change


def _relink(s: Scenario, f: Forgery) -> None:
    resign(receipt_event(f.bundle, 2), s.ledger_key, lambda b: b.update(prev="sha256:" + "ab" * 32))


def _forge_version_event(body: dict[str, object], new_hash: str) -> None:
    payload = body["payload"]
    assert isinstance(payload, dict)
    payload["text"] = payload["text"].replace(ORIGINAL, FORGED)
    payload["version_hash"] = new_hash


def _version_event_unknown_key(s: Scenario, f: Forgery) -> None:
    new_hash = recompute_evidence(f.bundle)
    resign(event(f.bundle, VERSION_ADDED), ATTACKER, lambda b: _forge_version_event(b, new_hash))


def _version_event_signature_forged(s: Scenario, f: Forgery) -> None:
    new_hash = recompute_evidence(f.bundle)
    forge_body(event(f.bundle, VERSION_ADDED), lambda b: _forge_version_event(b, new_hash))


def _proof_for_other_leaf(s: Scenario, f: Forgery) -> None:
    proofs = f.bundle["proofs"]
    proofs[0]["proof"], proofs[1]["proof"] = proofs[1]["proof"], proofs[0]["proof"]


def _claim(change: Callable[[dict[str, object]], None]) -> Mutation:
    def mutate(s: Scenario, f: Forgery) -> None:
        change(f.bundle["claim"])

    return mutate


def _span_ids_recomputed(s: Scenario, f: Forgery) -> None:
    recompute_evidence(f.bundle)


def _rewrite_source(s: Scenario, f: Forgery) -> None:
    rewrite_source(f.bundle)


def _recompute_version_hash(s: Scenario, f: Forgery) -> None:
    f.bundle["sources"][0]["version_hash"] = version_hash(rewrite_source(f.bundle))


def _drop_version_event(s: Scenario, f: Forgery) -> None:
    f.bundle["events"].remove(event(f.bundle, VERSION_ADDED))


def _shift_offsets(s: Scenario, f: Forgery) -> None:
    span = f.bundle["spans"][0]
    span["start"] += 1
    span["text"] = f.bundle["sources"][0]["frozen_text"][span["start"] : span["end"]]


def _edit_envelope(s: Scenario, f: Forgery) -> None:
    envelope = f.bundle["envelope"]
    payload = base64.b64decode(envelope["payload"]).replace(b"rose 0.2%", b"fell 9.2%")
    envelope["payload"] = base64.b64encode(payload).decode()


def _other_envelope(s: Scenario, f: Forgery) -> None:
    f.bundle["envelope"] = s.other_envelope


def _insider_binding_hash(s: Scenario, f: Forgery) -> None:
    wrong = version_hash("another text")

    def change(body: dict[str, object]) -> None:
        payload = body["payload"]
        assert isinstance(payload, dict)
        payload["claims"][0]["bindings"][0]["version_hash"] = wrong

    as_compromised_ledger(s, f, receipt_event(f.bundle, 3), change)
    f.bundle["claim"]["bindings"][0]["version_hash"] = wrong


def _insider_span_not_in_version(s: Scenario, f: Forgery) -> None:
    def change(body: dict[str, object]) -> None:
        payload = body["payload"]
        assert isinstance(payload, dict)
        payload["spans"] = [row for row in payload["spans"] if row[0] != 0]

    as_compromised_ledger(s, f, event(f.bundle, VERSION_ADDED), change)


def _insider_unknown_receipt_event(s: Scenario, f: Forgery) -> None:
    entry = receipt_event(f.bundle, 4)
    as_compromised_ledger(s, f, entry, lambda b: b.update(topic="provledger.receipt.reopened"))
    entry["topic"] = "provledger.receipt.reopened"


# name, mutation, reason, what the message must say (a regular expression)
VECTORS: list[tuple[str, Mutation, BundleReason, str]] = [
    (
        "format-unknown",
        _set("format", "provledger.bundle/v0"),
        R.BUNDLE_FORMAT_UNKNOWN,
        r"bundle format is 'provledger\.bundle/v0', expected 'provledger\.bundle/v1'",
    ),
    ("claim-removed", _set("claim", None), R.BUNDLE_MALFORMED, r"bundle\.claim must be an object"),
    (
        "checkpoint-garbled",
        _set("checkpoint", "not a note"),
        R.CHECKPOINT_MALFORMED,
        r"checkpoint: signed note has no blank line",
    ),
    (
        "origin-relabelled",
        _set("origin", "evil.example/log"),
        R.CHECKPOINT_ORIGIN_MISMATCH,
        r"checkpoint origin is 'provledger\.local/ledger', expected 'evil\.example/log'",
    ),
    (
        "checkpoint-size-altered",
        _set("checkpoint_size", 10**6),
        R.CHECKPOINT_SIZE_MISMATCH,
        r"checkpoint_size is 1000000 but the signed checkpoint says \d+",
    ),
    (
        "checkpoint-signed-by-untrusted-key",
        _untrusted_checkpoint,
        R.CHECKPOINT_KEY_UNTRUSTED,
        r"checkpoint carries no signature by a trusted key; found: provledger\.local/ledger \(",
    ),
    (
        "checkpoint-root-altered",
        _alter_root,
        R.CHECKPOINT_SIGNATURE_INVALID,
        r"signature by provledger\.local/ledger \([0-9a-f]{8}\) does not verify",
    ),
    (
        "previous-checkpoint-by-untrusted-key",
        _previous_untrusted,
        R.PREVIOUS_CHECKPOINT_UNTRUSTED,
        r"previous checkpoint carries no signature by a trusted key",
    ),
    (
        "checkpoint-rolled-back",
        _previous_newer,
        R.CHECKPOINT_ROLLBACK,
        r"the bundle's checkpoint \(size \d+\) is older than the previous checkpoint "
        r"\(size \d+\)",
    ),
    (
        "checkpoint-forked",
        _previous_forked,
        R.CHECKPOINT_FORK,
        r"fork: two checkpoints of size \d+ with different roots",
    ),
    (
        "consistency-proof-removed",
        _set("consistency", None),
        R.CONSISTENCY_PROOF_MISSING,
        r"no consistency proof from size 1 to \d+ \(request the bundle with \?since_size=1\)",
    ),
    (
        "consistency-proof-altered",
        _flip_consistency,
        R.CONSISTENCY_PROOF_INVALID,
        r"consistency from size 1 to \d+: computed root",
    ),
    (
        "event-stored-form-broken",
        _break_stored_form,
        R.EVENT_MALFORMED,
        r"event at leaf \d+ \(receipt .* v1\): stored state has no Ed25519 signature",
    ),
    (
        "event-entry-relabelled",
        _relabel_entry,
        R.EVENT_ENTRY_MISMATCH,
        r"event at leaf \d+ .*: signed body names .* v2 .* but the entry says .* v7",
    ),
    (
        "receipt-event-dropped",
        _drop_event(2),
        R.EVENT_SEQUENCE_GAP,
        r"event at leaf \d+ .*: expected version 2 of the aggregate, found 3",
    ),
    (
        "event-prev-relinked",
        _relink,
        R.EVENT_CHAIN_BROKEN,
        r"event at leaf \d+ .*: prev should be sha256:[0-9a-f]{64} but is sha256:(ab){32}",
    ),
    (
        "version-event-signed-by-unknown-key",
        _version_event_unknown_key,
        R.EVENT_KEY_UNKNOWN,
        rf"event at leaf \d+ .*: key id '{ATTACKER.kid}' is not in the keyring",
    ),
    (
        "version-event-signature-forged",
        _version_event_signature_forged,
        R.EVENT_SIGNATURE_INVALID,
        r"event at leaf \d+ \(source memo v2\): signature by key [0-9a-f]{16} does not match",
    ),
    (
        "proofs-emptied",
        _set("proofs", []),
        R.PROOF_MISSING,
        r"event at leaf \d+ .*: the bundle has no inclusion proof for leaf \d+",
    ),
    (
        "proof-for-other-leaf",
        _proof_for_other_leaf,
        R.PROOF_INVALID,
        r"event at leaf \d+ .*: computed root [0-9a-f]{64} but expected",
    ),
    (
        "events-emptied",
        _set("events", []),
        R.RECEIPT_EVENTS_MISSING,
        r"the bundle carries no events of receipt rcpt_[0-9a-f]{32}",
    ),
    (
        "receipt-event-unknown-to-the-verifier",
        _insider_unknown_receipt_event,
        R.RECEIPT_EVENTS_INVALID,
        r"receipt rcpt_[0-9a-f]+ v4: 'provledger\.receipt\.reopened' is not a receipt event",
    ),
    (
        "claim-id-altered",
        _claim(lambda c: c.update(claim_id="clm_000000000000000000000000")),
        R.CLAIM_NOT_RECORDED,
        r"claim clm_0+ is not among the claims the receipt's events record",
    ),
    (
        "claim-text-altered",
        _claim(lambda c: c.update(text="Revenue fell 9.2% to $4.5 million in 2023.")),
        R.CLAIM_TEXT_MISMATCH,
        r"claim clm_[0-9a-f]+: text is 'Revenue fell 9\.2% .*', the receipt's events record "
        r"'Revenue rose 0\.2% ",
    ),
    (
        "span-ids-recomputed",
        _span_ids_recomputed,
        R.CLAIM_BINDING_MISMATCH,
        r"claim clm_[0-9a-f]+: binding 0 is .*, the receipt's events record .*sp_",
    ),
    (
        "claim-status-altered",
        _claim(lambda c: c.update(status="verified", checks=[])),
        R.CLAIM_RECORD_MISMATCH,
        r"claim clm_[0-9a-f]+ differs from the receipt's events in: checks",
    ),
    (
        "spans-emptied",
        _set("spans", []),
        R.BINDING_SPAN_MISSING,
        r"binding 0 of claim clm_[0-9a-f]+ names span sp_[0-9a-f]{24} \(memo v1\), "
        r"which the bundle does not carry",
    ),
    (
        "sources-emptied",
        _set("sources", []),
        R.SOURCE_VERSION_MISSING,
        r"span sp_[0-9a-f]{24}: the bundle carries no frozen text of memo v1",
    ),
    (
        "source-text-rewritten",
        _rewrite_source,
        R.SOURCE_TEXT_HASH_MISMATCH,
        r"memo v1: frozen text hashes to sha256:[0-9a-f]{64}, not to its version hash",
    ),
    (
        "version-hash-recomputed",
        _recompute_version_hash,
        R.VERSION_HASH_UNSIGNED,
        r"memo v1: version hash sha256:[0-9a-f]{64} is not the one its signed version-added "
        r"event records \(sha256:[0-9a-f]{64}\)",
    ),
    (
        "version-event-missing",
        _drop_version_event,
        R.VERSION_EVENT_MISSING,
        r"memo v1: the bundle carries no signed version-added event for it",
    ),
    (
        "binding-hash-disagrees-with-version-event",
        _insider_binding_hash,
        R.BINDING_VERSION_MISMATCH,
        r"binding 0 of claim clm_[0-9a-f]+ names version hash sha256:[0-9a-f]{64}, but memo v1 "
        r"has sha256:",
    ),
    (
        "span-text-rewritten",
        lambda s, f: f.bundle["spans"][0].update(text="Revenue fell 9.2% to $4.5 million in 2023."),
        R.SPAN_TEXT_MISMATCH,
        r"span sp_[0-9a-f]{24}: text is not memo v1's frozen text at \[0:42\]",
    ),
    (
        "span-offsets-shifted",
        _shift_offsets,
        R.SPAN_ID_MISMATCH,
        r"span sp_[0-9a-f]{24}: the id of memo v1 \[1:42\] is sp_[0-9a-f]{24}",
    ),
    (
        "span-not-in-version-event",
        _insider_span_not_in_version,
        R.SPAN_NOT_IN_VERSION,
        r"span sp_[0-9a-f]{24}: \[0:42\] is not a span memo v1's version-added event records",
    ),
    (
        "envelope-payload-edited",
        _edit_envelope,
        R.ENVELOPE_INVALID,
        r"receipt envelope does not verify: .*signature",
    ),
    (
        "envelope-from-other-receipt",
        _other_envelope,
        R.ENVELOPE_RECEIPT_MISMATCH,
        r"the envelope is receipt rcpt_[0-9a-f]{32}'s, not rcpt_[0-9a-f]{32}'s",
    ),
    (
        "receipt-latest-event-dropped",
        _drop_event(4),
        R.RECEIPT_STATE_MISMATCH,
        r"the envelope's receipt differs from the one its events in the bundle replay to, "
        r"in: claims",
    ),
]


def _evidence_rewritten_claim_untouched(s: Scenario, f: Forgery) -> None:
    claim = copy.deepcopy(f.bundle["claim"])
    recompute_evidence(f.bundle)
    f.bundle["claim"] = claim


def _empty(*keys: str) -> Mutation:
    def change(s: Scenario, f: Forgery) -> None:
        for key in keys:
            f.bundle[key] = []

    return change


# The forged bundles issue 13 reports as VERIFIED before this verifier; reasons may repeat.
REPORTED: list[tuple[str, Mutation, BundleReason]] = [
    (
        "evidence-rewritten-claim-untouched",
        _evidence_rewritten_claim_untouched,
        R.BINDING_SPAN_MISSING,
    ),
    ("spans-and-sources-emptied", _empty("spans", "sources"), R.BINDING_SPAN_MISSING),
    ("events-and-proofs-emptied", _empty("events", "proofs"), R.RECEIPT_EVENTS_MISSING),
]
