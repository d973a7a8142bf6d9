"""An auditor's comparison of a log (or a bundle) with the newest checkpoint a witness cosigned.

The witness's checkpoint is trusted only after two signatures verify: the witness's
cosignature (C2SP tlog-cosignature, with the verifier key the auditor was given) and the log's
own signature (with the auditor's keyring). Then:

- the event store must hold at least that many events, and its first ``size`` events must
  give that root (:func:`check_log_against_witness`): deleting the newest event of an
  aggregate, or truncating the log, breaks this even though every remaining chain is intact;
- a bundle's checkpoint must be the witnessed one, or extend it by a consistency proof the
  bundle carries (:func:`check_bundle_against_witness`).

Every disagreement raises :class:`~ledger.audit.witness.WitnessError` with its reason.
"""

from __future__ import annotations

import base64
import binascii
import hmac
from typing import Any

from eventsourcing.persistence import ApplicationRecorder

from ledger.audit.log_audit import LoggedLeaves, audit_log
from ledger.audit.witness import WitnessRefusal
from ledger.crypto.checkpoint import Checkpoint, verify_note
from ledger.crypto.cosignature import Cosigned, WitnessKey, verify_cosignature
from ledger.crypto.merkle import verify_consistency
from ledger.crypto.signing import Keyring
from ledger.errors import CheckpointError, MerkleVerificationError, WitnessError


def verify_witnessed_note(
    note: str, witness: WitnessKey, keyring: Keyring, origin: str
) -> Cosigned:
    """The checkpoint of ``note`` once the witness's cosignature and the log's signature hold."""
    try:
        cosigned = verify_cosignature(note, witness)
    except CheckpointError as exc:
        raise WitnessError(WitnessRefusal.BAD_COSIGNATURE, str(exc)) from None
    if cosigned.checkpoint.origin != origin:
        raise WitnessError(
            WitnessRefusal.UNKNOWN_LOG,
            f"the witnessed checkpoint is of {cosigned.checkpoint.origin!r}, expected {origin!r}",
        )
    _log_signed(note, keyring, origin, "the witnessed checkpoint")
    return cosigned


def _log_signed(note: str, keyring: Keyring, origin: str, what: str) -> Checkpoint:
    for record in keyring.records.values():
        try:
            return verify_note(note, origin, record.public_key, origin=origin)
        except CheckpointError:
            continue
    raise WitnessError(
        WitnessRefusal.NOT_SIGNED_BY_LOG, f"{what} is not signed by a trusted key of {origin}"
    )


def check_log_against_witness(
    recorder: ApplicationRecorder,
    keyring: Keyring,
    note: str,
    witness: WitnessKey,
    origin: str,
    logged: LoggedLeaves | None = None,
) -> Cosigned:
    """Check that the stored events reproduce the witnessed checkpoint ``note``.

    Raises ``log_shorter_than_witnessed`` when the store holds fewer events than the witness
    cosigned, ``log_inconsistent_with_witness`` when its first events give another root
    (naming the first edited or deleted event when ``logged`` leaves are at hand).
    """
    cosigned = verify_witnessed_note(note, witness, keyring, origin)
    audit = audit_log(recorder, keyring, note, origin, logged)
    if audit.ok:
        return cosigned
    problems = "; ".join(audit.problems)
    size = cosigned.checkpoint.size
    if audit.events < size:
        raise WitnessError(
            WitnessRefusal.LOG_SHORTER,
            f"the witness {witness.name} cosigned size {size}: {problems}",
            size,
        )
    raise WitnessError(
        WitnessRefusal.LOG_INCONSISTENT,
        f"the witness {witness.name} cosigned size {size}: {problems}",
        size,
    )


def check_bundle_against_witness(
    bundle: dict[str, Any], note: str, witness: WitnessKey, keyring: Keyring
) -> Cosigned:
    """Check that a bundle's checkpoint is the witnessed one or provably extends it."""
    origin = str(bundle.get("origin", ""))
    cosigned = verify_witnessed_note(note, witness, keyring, origin)
    witnessed = cosigned.checkpoint
    ours = _log_signed(
        str(bundle.get("checkpoint", "")), keyring, origin, "the bundle's checkpoint"
    )
    if ours.size < witnessed.size:
        raise WitnessError(
            WitnessRefusal.LOG_SHORTER,
            f"the bundle's checkpoint has size {ours.size} but the witness {witness.name} "
            f"cosigned size {witnessed.size}: fetch a fresh bundle",
            witnessed.size,
        )
    if ours.size == witnessed.size:
        if not hmac.compare_digest(ours.root, witnessed.root):
            raise WitnessError(
                WitnessRefusal.FORK,
                f"the bundle's checkpoint and the witnessed one both have size {ours.size} "
                "but different roots",
                witnessed.size,
            )
        return cosigned
    consistency = bundle.get("consistency")
    if not isinstance(consistency, dict) or consistency.get("first") != witnessed.size:
        raise WitnessError(
            WitnessRefusal.BAD_PROOF,
            f"the bundle carries no consistency proof from the witnessed size "
            f"{witnessed.size}: request it with ?since_size={witnessed.size}",
            witnessed.size,
        )
    try:
        proof = [base64.b64decode(h, validate=True) for h in consistency.get("proof", [])]
        verify_consistency(witnessed.size, ours.size, proof, witnessed.root, ours.root)
    except (binascii.Error, TypeError, ValueError, MerkleVerificationError) as exc:
        raise WitnessError(
            WitnessRefusal.LOG_INCONSISTENT,
            f"the bundle's checkpoint does not extend the witnessed one: {exc}",
            witnessed.size,
        ) from None
    return cosigned
