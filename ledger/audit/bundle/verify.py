"""Offline verification of a citation-chain bundle: no server, no database.

A bundle (``GET /v1/claims/{claim_id}/bundle``, format in docs/audit.md) carries a claim, its
bound spans, their source versions' frozen text, the receipt's DSSE envelope, every event of
the receipt and of the bound sources in stored form, inclusion proofs of those events to a
signed checkpoint, and the checkpoint. Trust comes only from the keyring the auditor holds;
nothing the bundle says about itself (its ``keys`` included) is believed until a signature
made by a trusted key covers it. The chain checked, from the trust anchor to the claim:

1. the checkpoint is a C2SP signed note by a trusted key (and, given the auditor's earlier
   checkpoint, the log grew append-only from it: RFC 9162 section 2.1.4);
2. every event is well formed, chained to its predecessor and signed by a trusted key (the
   checks of ``provledger verify``), and included in the checkpoint (RFC 9162 2.1.3);
3. the receipt, replayed from its signed events, records the claim exactly as the bundle
   states it;
4. every binding of the claim names a span the bundle carries, of a source version whose
   frozen text hashes to the version hash a signed ``version added`` event records; each
   span's text is that frozen text at its offsets, its id derives from them, and the version
   event lists those offsets among its spans;
5. the receipt envelope verifies and seals the same receipt the events replay to.

A bundle whose every check holds says also where the receipt stands, from its signed events
(:attr:`Checklist.standing`): open, or expired with when and why (a superseded source version
named), since a verified citation chain of an expired receipt is history, not current evidence.

:func:`check_bundle` raises :class:`~ledger.audit.bundle.reasons.BundleVerificationError` with the
reason code of the first check that fails; :func:`verify_bundle` returns the same as a
checklist for display (``provledger audit verify``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ledger.audit.bundle.evidence import check_claim, check_envelope, check_evidence, replay
from ledger.audit.bundle.log import (
    check_consistency,
    check_events,
    check_proofs,
    labeller,
    trusted_checkpoint,
)
from ledger.audit.bundle.reasons import BundleReason
from ledger.audit.bundle.shape import BUNDLE_FORMAT, parse_bundle
from ledger.crypto.signing import Keyring
from ledger.errors import BundleVerificationError, LedgerError
from ledger.receipts.document import receipt_status, standing_text
from ledger.receipts.receipt import Receipt

__all__ = [
    "BUNDLE_FORMAT",
    "BundleReason",
    "BundleVerificationError",
    "Checklist",
    "check_bundle",
    "verify_bundle",
]

R = BundleReason


@dataclass
class Checklist:
    """Every check that held, in order, and the failure that stopped verification, if any."""

    items: list[tuple[bool, str]] = field(default_factory=list)
    failure: BundleVerificationError | None = None
    standing: str | None = None
    """The receipt's standing, from its signed events: open, or expired with why."""
    expired: bool = False

    @property
    def ok(self) -> bool:
        """True when every check ran and held."""
        return self.failure is None and bool(self.items)

    @property
    def reason(self) -> BundleReason | None:
        """The reason code of the failure (None when the bundle verified)."""
        return None if self.failure is None else BundleReason(self.failure.reason)


def verify_bundle(
    bundle: Any,
    keyring: Keyring,
    previous_checkpoint: str | None = None,
    *,
    origin: str | None = None,
) -> Checklist:
    """Check a bundle as :func:`check_bundle` does; never raises, returns the checklist."""
    checks = Checklist()
    passed: list[str] = []
    try:
        receipt = _checked(bundle, keyring, previous_checkpoint, origin, passed.append)
    except BundleVerificationError as exc:
        checks.failure = exc
    else:
        checks.standing = standing_text(receipt)
        checks.expired = receipt_status(receipt)["status"] == "expired"
    checks.items = [(True, text) for text in passed]
    if checks.failure is not None:
        checks.items.append((False, f"{checks.failure.reason.value}: {checks.failure.detail}"))
    return checks


def check_bundle(
    bundle: Any,
    keyring: Keyring,
    previous_checkpoint: str | None = None,
    *,
    origin: str | None = None,
    passed: list[str] | None = None,
) -> list[str]:
    """Verify ``bundle`` (parsed JSON) with the trusted ``keyring``; return what was checked.

    ``previous_checkpoint`` is a signed note the auditor saw earlier: the bundle must then
    carry a consistency proof from it. ``origin`` is the log's expected origin (default: the
    bundle's own). Raises :class:`BundleVerificationError` at the first check that fails.
    """
    done: list[str] = [] if passed is None else passed
    _checked(bundle, keyring, previous_checkpoint, origin, done.append)
    return done


def _checked(
    bundle: Any,
    keyring: Keyring,
    previous: str | None,
    origin: str | None,
    ok: Callable[[str], None],
) -> Receipt:
    """:func:`_check`, failing closed: anything unreadable is ``bundle-malformed``."""
    try:
        return _check(bundle, keyring, previous, origin, ok)
    except BundleVerificationError:
        raise
    except (LedgerError, KeyError, TypeError, ValueError, RecursionError) as exc:
        raise BundleVerificationError(
            R.BUNDLE_MALFORMED, f"bundle cannot be read: {exc!r}"
        ) from exc


def _check(
    document: Any,
    keyring: Keyring,
    previous: str | None,
    origin: str | None,
    ok: Callable[[str], None],
) -> Receipt:
    bundle = parse_bundle(document)
    origin = bundle.origin if origin is None else origin
    checkpoint = trusted_checkpoint(
        bundle.checkpoint,
        origin,
        keyring,
        "checkpoint",
        (
            R.CHECKPOINT_MALFORMED,
            R.CHECKPOINT_ORIGIN_MISMATCH,
            R.CHECKPOINT_KEY_UNTRUSTED,
            R.CHECKPOINT_SIGNATURE_INVALID,
        ),
    )
    if bundle.checkpoint_size != checkpoint.size:
        raise BundleVerificationError(
            R.CHECKPOINT_SIZE_MISMATCH,
            f"checkpoint_size is {bundle.checkpoint_size} but the signed checkpoint says "
            f"{checkpoint.size}",
        )
    ok(
        f"checkpoint signed by a trusted key as {origin}: size {checkpoint.size}, "
        f"root {checkpoint.root.hex()[:16]}..."
    )
    if previous is not None:
        check_consistency(bundle, keyring, origin, previous, checkpoint)
        ok(f"log grew append-only from the previous checkpoint to size {checkpoint.size}")
    label = labeller(bundle)
    chains = check_events(bundle, keyring, label)
    ok(f"{len(bundle.events)} events are well formed, chained and signed by trusted keys")
    check_proofs(bundle, chains.states, checkpoint, label)
    ok(f"{len(bundle.events)} inclusion proofs verify against the checkpoint root")
    receipt = replay(bundle, chains)
    claim = check_claim(bundle, receipt)
    ok(f"claim {claim['claim_id']} is the one receipt {bundle.receipt_id}'s signed events record")
    check_evidence(bundle, claim, chains)
    ok(
        f"{len(bundle.spans)} spans are their sources' signed frozen text at their offsets "
        f"({len(bundle.sources)} source versions)"
    )
    check_envelope(bundle, keyring, receipt)
    ok("receipt envelope verifies and seals the receipt its events replay to")
    return receipt
