"""Assemble a citation-chain bundle: everything an auditor needs to verify one claim offline.

Layout (``provledger.bundle/v1``, documented in ``docs/audit.md``): the claim as the receipt
recorded it; each bound span with offsets and verbatim text; each bound source version's
frozen text and hash; the receipt's DSSE envelope; every event of the receipt and of the bound
sources in stored form, each with its leaf index; inclusion proofs of those leaves to the
latest signed checkpoint; the checkpoint; the trusted keys; optionally a consistency proof
from an earlier tree size.

Nothing is signed or served as the database holds it: every event carried is verified as every
read is (signature, chain, contiguity from version 1), and the spans and frozen texts come
from the verified ``version added`` events, not from the registry's tables. A tampered event or
row refuses the bundle with ``ledger-integrity``; no envelope is signed over it.
"""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

from sqlalchemy import Connection, select

from ledger.audit.receipt_replay import replay_receipt
from ledger.crypto.dsse import RECEIPT_PAYLOAD_TYPE, seal_envelope
from ledger.crypto.merkle_log import (
    NodeId,
    consistency_proof_from_nodes,
    inclusion_proof_from_nodes,
    proof_node_ids_for_consistency,
    proof_node_ids_for_inclusion,
)
from ledger.errors import InvalidInput, LedgerIntegrityError, NotFound
from ledger.receipts.document import receipt_payload
from ledger.receipts.receipt_ids import receipt_aggregate_id
from ledger.registry.source import source_aggregate_id
from ledger.registry.verified_spans import FrozenVersion
from ledger.runtime import LedgerRuntime
from ledger.text.spans import Span
from projections.schema import checkpoints, merkle_leaves, receipt_claims
from projections.service import ReadSide
from projections.transparency_queries import NEWEST_CHECKPOINT, b64, read_nodes

FORMAT = "provledger.bundle/v1"


# Over 60 lines on purpose: it assembles the bundle in the order of its format, all from one
# read-model connection, so every part is read against the same checkpoint size.
def build_bundle(
    claim_id: str,
    read_side: ReadSide,
    runtime: LedgerRuntime,
    since_size: int | None = None,
) -> dict[str, Any]:
    """The bundle of ``claim_id`` against the latest checkpoint.

    The claim and the envelope come from the receipt replayed from the very events the bundle
    carries (all of them covered by the checkpoint), so an auditor's replay of those events
    reproduces both exactly.
    """
    read_side.catch_up()
    engine = read_side.db.sync
    with engine.connect() as conn:
        receipt_id = conn.execute(
            select(receipt_claims.c.receipt_id).where(receipt_claims.c.claim_id == claim_id)
        ).scalar()
        if receipt_id is None:
            raise NotFound(f"no claim {claim_id!r}")
        latest = conn.execute(
            NEWEST_CHECKPOINT.with_only_columns(checkpoints.c.size, checkpoints.c.note)
        ).first()
        if latest is None:
            raise NotFound("the transparency log has no checkpoint yet")
        size, note = int(latest[0]), str(latest[1])
        receipt_aggregate = str(receipt_aggregate_id(str(receipt_id)))
        receipt_events = _events(
            runtime, [receipt_aggregate], _leaves(conn, [receipt_aggregate]), size
        )
        receipt = replay_receipt([event["stored"]["body"] for event in receipt_events])
        claim = next(
            (c for c in receipt.claims + receipt.rejected if c["claim_id"] == claim_id), None
        )
        if claim is None:
            raise NotFound(f"claim {claim_id!r} is not in a signed checkpoint yet; retry")
        bound = sorted(
            {(b["source_id"], b["version"]) for b in claim["bindings"] if b["source_id"]}
        )
        span_rows, source_rows, aggregates = [], [], []
        frozen = {key: read_side.span_resolver.frozen(*key) for key in bound}
        for (source_id, version), text in frozen.items():
            source_rows.append(
                {
                    "source_id": source_id,
                    "version": version,
                    "version_hash": text.version_hash,
                    "frozen_text": text.text,
                }
            )
            aggregate = str(source_aggregate_id(source_id))
            if aggregate not in aggregates:
                aggregates.append(aggregate)
        for binding in claim["bindings"]:
            if not binding["source_id"]:
                continue
            span = _bound_span(frozen[binding["source_id"], binding["version"]], binding)
            span_rows.append(
                {
                    "span_id": binding["span_id"],
                    "source_id": binding["source_id"],
                    "version": binding["version"],
                    "start": span.start,
                    "end": span.end,
                    "text": span.text,
                }
            )
        events = receipt_events + _events(runtime, aggregates, _leaves(conn, aggregates), size)
        events.sort(key=lambda event: event["leaf_index"])
        indices = [event["leaf_index"] for event in events]
        ids: list[NodeId] = [
            i for index in indices for i in proof_node_ids_for_inclusion(index, size)
        ]
        consistency = None
        if since_size is not None:
            if not 1 <= since_size <= size:
                raise InvalidInput("since_size", "range", f"since_size must be 1..{size}")
            ids += proof_node_ids_for_consistency(since_size, size)
        nodes = read_nodes(conn, ids)

    def read(level: int, idx: int) -> bytes:
        return nodes[level, idx]

    proofs = [
        {
            "leaf_index": index,
            "proof": [b64(h) for h in inclusion_proof_from_nodes(index, size, read)],
        }
        for index in indices
    ]
    if since_size is not None:
        consistency = {
            "first": since_size,
            "second": size,
            "proof": [b64(h) for h in consistency_proof_from_nodes(since_size, size, read)],
        }
    envelope = seal_envelope(
        receipt_payload(receipt), RECEIPT_PAYLOAD_TYPE, runtime.hmac_key, runtime.ledger.signing_key
    )
    return {
        "format": FORMAT,
        "origin": read_side.origin,
        "claim": claim,
        "receipt_id": receipt.receipt_id,
        "spans": span_rows,
        "sources": source_rows,
        "envelope": envelope,
        "events": events,
        "proofs": proofs,
        "checkpoint": note,
        "checkpoint_size": size,
        "consistency": consistency,
        "keys": runtime.keystore.load_keyring().to_json()["keys"],
    }


def _bound_span(frozen: FrozenVersion, binding: dict[str, Any]) -> Span:
    """The bound span, as its verified version holds it."""
    span = frozen.spans.get(binding["span_id"])
    if span is None:
        raise LedgerIntegrityError(
            "read_model_mismatch",
            f"claim binding {binding['span_id']} names no span of {binding['source_id']} "
            f"version {binding['version']}",
            {"span_id": binding["span_id"], "source_id": binding["source_id"]},
        )
    return span


def _leaves(conn: Connection, aggregates: list[str]) -> dict[tuple[str, int], tuple[int, int]]:
    """Leaf index and notification id of every logged event of ``aggregates``."""
    return {
        (row[0], row[1]): (int(row[2]), int(row[3]))
        for row in conn.execute(
            select(
                merkle_leaves.c.originator_id,
                merkle_leaves.c.originator_version,
                merkle_leaves.c.leaf_index,
                merkle_leaves.c.notification_id,
            ).where(merkle_leaves.c.originator_id.in_(aggregates))
        )
    }


def _events(
    runtime: LedgerRuntime,
    aggregates: list[str],
    leaves: dict[tuple[str, int], tuple[int, int]],
    size: int,
) -> list[dict[str, Any]]:
    """Every event of ``aggregates`` in the tree of ``size`` leaves, in version order, each
    verified (signature, chain, versions contiguous from 1) before it is carried."""
    events = []
    ledger = runtime.ledger
    for aggregate in aggregates:
        rows = ledger.recorder.select_events(UUID(aggregate))
        ledger.checks.check(ledger.recorder, UUID(aggregate), rows, 1)
        for stored in rows:
            leaf = leaves.get((aggregate, stored.originator_version))
            if leaf is None or leaf[0] >= size:  # after the checkpoint: not in this bundle
                break
            events.append(
                {
                    "notification_id": leaf[1],
                    "leaf_index": leaf[0],
                    "originator_id": aggregate,
                    "originator_version": stored.originator_version,
                    "topic": stored.topic,
                    "stored": json.loads(stored.state),
                }
            )
    return events
