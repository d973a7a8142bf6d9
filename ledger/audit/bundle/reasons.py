"""Why a citation-chain bundle failed verification: one error type, one reason code each.

The codes are listed in the order :func:`ledger.audit.bundle.verify.check_bundle` checks them
(docs/audit.md, "What `provledger audit verify` checks"); verification stops at the first
failure, so a bundle is refused with the reason of the first check it fails.
"""

from __future__ import annotations

from enum import StrEnum


class BundleReason(StrEnum):
    """What did not hold. The values are stable: auditors' scripts match on them."""

    # The document itself.
    BUNDLE_FORMAT_UNKNOWN = "bundle-format-unknown"
    BUNDLE_MALFORMED = "bundle-malformed"
    # The checkpoint: the trust anchor (C2SP tlog-checkpoint and signed-note).
    CHECKPOINT_MALFORMED = "checkpoint-malformed"
    CHECKPOINT_ORIGIN_MISMATCH = "checkpoint-origin-mismatch"
    CHECKPOINT_SIZE_MISMATCH = "checkpoint-size-mismatch"
    CHECKPOINT_KEY_UNTRUSTED = "checkpoint-key-untrusted"
    CHECKPOINT_SIGNATURE_INVALID = "checkpoint-signature-invalid"
    # Against the auditor's earlier checkpoint (RFC 9162 section 2.1.4).
    PREVIOUS_CHECKPOINT_UNTRUSTED = "previous-checkpoint-untrusted"
    CHECKPOINT_ROLLBACK = "checkpoint-rollback"
    CHECKPOINT_FORK = "checkpoint-fork"
    CONSISTENCY_PROOF_MISSING = "consistency-proof-missing"
    CONSISTENCY_PROOF_INVALID = "consistency-proof-invalid"
    # Each event: signed envelope, chain, signature (the checks of `provledger verify`).
    EVENT_MALFORMED = "event-malformed"
    EVENT_ENTRY_MISMATCH = "event-entry-mismatch"
    EVENT_SEQUENCE_GAP = "event-sequence-gap"
    EVENT_CHAIN_BROKEN = "event-chain-broken"
    EVENT_KEY_UNKNOWN = "event-key-unknown"
    EVENT_SIGNATURE_INVALID = "event-signature-invalid"
    # Each event's inclusion in the checkpoint (RFC 9162 section 2.1.3).
    PROOF_MISSING = "proof-missing"
    PROOF_INVALID = "proof-invalid"
    # The receipt, replayed from its signed events, and the claim in it.
    RECEIPT_EVENTS_MISSING = "receipt-events-missing"
    RECEIPT_EVENTS_INVALID = "receipt-events-invalid"
    CLAIM_NOT_RECORDED = "claim-not-recorded"
    CLAIM_TEXT_MISMATCH = "claim-text-mismatch"
    CLAIM_BINDING_MISMATCH = "claim-binding-mismatch"
    CLAIM_RECORD_MISMATCH = "claim-record-mismatch"
    # The evidence: bindings, spans, frozen texts and their signed version events.
    BINDING_SPAN_MISSING = "binding-span-missing"
    SOURCE_VERSION_MISSING = "source-version-missing"
    SOURCE_TEXT_HASH_MISMATCH = "source-text-hash-mismatch"
    VERSION_EVENT_MISSING = "version-event-missing"
    VERSION_HASH_UNSIGNED = "version-hash-unsigned"
    BINDING_VERSION_MISMATCH = "binding-version-mismatch"
    SPAN_TEXT_MISMATCH = "span-text-mismatch"
    SPAN_ID_MISMATCH = "span-id-mismatch"
    SPAN_NOT_IN_VERSION = "span-not-in-version"
    # The receipt's DSSE envelope.
    ENVELOPE_INVALID = "envelope-invalid"
    ENVELOPE_RECEIPT_MISMATCH = "envelope-receipt-mismatch"
    RECEIPT_STATE_MISMATCH = "receipt-state-mismatch"
