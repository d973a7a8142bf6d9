"""What the receipt and claim lists serve, checked against the verified receipt events first.

The receipts read model (``receipts``, ``receipt_claims``, ``claim_bindings``,
``review_queue``) renders the lists: receipts with their context, times and standing, claims
with their status and receipt, the receipts and claims that stood on a source version, the
review queue. It is a table an attacker with database access can edit, so no row of a page is
served until the receipt's verified events say the same: of a receipt, every column a list
shows (its summary, :mod:`ledger.receipts.summaries`, by the rule the list renders it with)
and its counts of committed and quarantined claims; of a claim, its receipt, ordinal, status,
whether it is committed, client reference, type, when it was recorded and the spans it is
bound to; of a review entry, the sampled verdict as recorded. A difference refuses the read
with ``read_model_mismatch`` (500 ``ledger-integrity``) naming the table and the receipt or
claim, never the edited value.

Only the rows a page serves are checked, after a pinned key's filter (a row it may not see
is neither served nor checked, so an edit there changes nothing it can observe). The page's
receipts are read together: one query for their newest versions, and, for those not
remembered at that version, one query for all their events, verified as every read is
(:meth:`~ledger.eventlog.application.Ledger.verified_history`).

A read model may be behind the log (another process wrote what this one's projection has
not applied yet): a row that differs is checked again against the receipt as the events the
receipts projection has applied left it (its *horizon*), so a row that lacks only what the
projection has not reached is served. Log positions (``position``) are the read model's
bookkeeping, not checked here; a row deleted, or moved out of a list by an edit, is not seen
missing by that list: ``provledger verify --read-models`` compares every row.
"""

from __future__ import annotations

import hmac
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn
from uuid import UUID

from ledger.errors import LedgerIntegrityError
from ledger.eventlog.application import project
from ledger.eventlog.clock import format_time
from ledger.receipts.receipt import Receipt
from ledger.receipts.receipt_ids import receipt_aggregate_id
from ledger.receipts.summaries import (
    ADDED_LATER,
    affected_standing,
    receipt_summary,
    receipt_summary_at,
)

MISMATCH = "read_model_mismatch"
Heads = Callable[[list[UUID]], dict[UUID, int]]
"""The newest stored version of each of some receipt aggregates (one query for all)."""
Histories = Callable[[list[UUID]], dict[UUID, list[Any]]]
"""The verified events of each of some receipt aggregates, from version 1 (one query)."""
Horizon = Callable[[UUID], int]
"""The highest version of a receipt aggregate the receipts projection has applied."""
REMEMBERED = 4_096
"""Receipts' facts remembered to check rows against: a receipt's row and one small record per
claim, about 1 KB and 0.5 KB a claim (measured with ``tracemalloc``: 3.3 KB for five claims,
14 MB for 4,096 such receipts)."""

CLAIM_FIELDS = ("receipt_id", "ordinal", "status", "committed", "client_ref", "type")
REVIEW_FIELDS = ("claim_id", "receipt_id", "claim_text", "verdict", "verifier", "model")


def _mismatch(table: str, what: dict[str, str], fields: Iterable[str]) -> NoReturn:
    named = ", ".join(f"{key} {value!r}" for key, value in what.items())
    raise LedgerIntegrityError(
        MISMATCH,
        f"{table} row of {named}: the row's {', '.join(sorted(set(fields)))} differ from the "
        "signed events",
        {"table": table, **what},
    )


def _same(served: Any, expected: Any) -> bool:
    if isinstance(served, str) and isinstance(expected, str):
        return hmac.compare_digest(served.encode(), expected.encode())
    return bool(served == expected)


def _differ(served: Mapping[str, Any], expected: Mapping[str, Any]) -> list[str]:
    """The names of the fields ``served`` carries with another value than ``expected``; a
    column a read model built before it leaves null shows nothing and is not a difference."""
    return [
        k
        for k, v in expected.items()
        if k in served and not (served[k] is None and k in ADDED_LATER) and not _same(served[k], v)
    ]


@dataclass(frozen=True)
class ReceiptFacts:
    """What the receipts read model may say of one receipt, from its verified events up to
    aggregate version ``version``."""

    version: int
    row: dict[str, Any]
    """The ``receipts`` row, by its column names (position aside)."""
    claims: dict[str, dict[str, Any]]
    """Each claim as ``GET /v1/claims`` lists it (position aside), with its ``bindings``:
    ``(span_id, source_id, version)`` of each, in order."""
    committed: int
    quarantined: int
    judged: tuple[dict[str, Any], ...]
    """The review entries its sampled verdicts ``no`` and ``partial`` made (position aside)."""
    memory: tuple[tuple[str, int], ...] = ()
    """``(memory_id, version)`` of each memory version its pool sealed."""

    @classmethod
    def of(cls, events: Sequence[Any]) -> ReceiptFacts:
        """The facts of a receipt from its verified events, in order from version 1."""
        receipt: Receipt = project(None, events)
        recorded: dict[str, str] = {}
        judged = []
        for event in events:
            if isinstance(event, Receipt.ClaimsCommitted | Receipt.ClaimsRejected):
                for claim in event.claims:
                    recorded.setdefault(claim["claim_id"], format_time(event.timestamp))
            elif isinstance(event, Receipt.EntailmentJudged) and event.verdict in ("no", "partial"):
                judged.append(
                    {
                        "claim_id": event.claim_id,
                        "receipt_id": receipt.receipt_id,
                        "claim_text": event.claim_text,
                        "verdict": event.verdict,
                        "verifier": event.verifier,
                        "model": event.model,
                        "judged_at": format_time(event.timestamp),
                    }
                )
        context = receipt.context
        first = receipt.expiries[0] if receipt.expiries else None
        row = {
            "receipt_id": receipt.receipt_id,
            "inference_id": receipt.inference_id,
            "opened_by": receipt.opened_by,
            "actor": context["actor"],
            "purpose": context["purpose"],
            "policy_version": context["policy_version"],
            "route": context["route"],
            "as_of": receipt.as_of,
            "expires_at": receipt.expires_at,
            "opened_at": format_time(receipt.created_on),
            "expired_at": None if first is None else first["at"],
            "expiry_reason": None if first is None else first["reason"],
            "request": context["request"],
        }
        claims = {}
        for committed, listed in ((True, receipt.claims), (False, receipt.rejected)):
            for claim in listed:
                claims[claim["claim_id"]] = {
                    "claim_id": claim["claim_id"],
                    "receipt_id": receipt.receipt_id,
                    "ordinal": claim["ordinal"],
                    "status": claim["status"],
                    "committed": committed,
                    "client_ref": claim["client_ref"],
                    "type": claim["type"],
                    "recorded_at": recorded[claim["claim_id"]],
                    "bindings": [
                        (b["span_id"], b["source_id"], b["version"]) for b in claim["bindings"]
                    ],
                }
        return cls(
            receipt.version,
            row,
            claims,
            len(receipt.claims),
            len(receipt.rejected),
            tuple(judged),
            tuple((m["memory_id"], m["version"]) for m in receipt.memory),
        )

    def stood_on(self, source_id: str, version: int) -> list[dict[str, Any]]:
        """The committed claims bound to a source version, as an affected list shows them."""
        return [
            {
                "claim_id": claim["claim_id"],
                "status": claim["status"],
                "span_ids": sorted(
                    s for s, src, v in claim["bindings"] if (src, v) == (source_id, version)
                ),
            }
            for claim_id, claim in sorted(self.claims.items())
            if claim["committed"]
            and any((src, v) == (source_id, version) for _, src, v in claim["bindings"])
        ]


Differ = Callable[[ReceiptFacts], list[str]]


class ServedReceipts:
    """Checks receipt and claim rows about to be served against the verified receipt events.

    A page's rows are checked with one query for their receipts' newest versions: a receipt
    whose facts were taken from verified events at that version is checked as remembered;
    the others are read together (one query) and verified."""

    def __init__(self, heads: Heads, histories: Histories, horizon: Horizon) -> None:
        self.heads = heads
        self.histories = histories
        self.horizon = horizon
        self._lock = threading.Lock()
        self._facts: OrderedDict[UUID, ReceiptFacts] = OrderedDict()

    def check_receipts(self, summaries: Sequence[Mapping[str, Any]], now: str) -> None:
        """Refuse a page of ``GET /v1/receipts`` (summaries at ledger time ``now``) unless
        every row is what its receipt's verified events give."""
        self._check_rows(
            "receipts",
            summaries,
            lambda served: lambda facts: _differ(served, receipt_summary(facts.row, now)),
        )

    def check_receipts_at(self, summaries: Sequence[Mapping[str, Any]], now: str) -> None:
        """Refuse a page of the console's receipts or replay list (each receipt as it stood at
        ``now``, with its question and claim counts) unless its verified events hold it."""

        def differ(served: Mapping[str, Any]) -> Differ:
            return lambda facts: _differ(
                served,
                {
                    **receipt_summary_at(facts.row, now),
                    "claim_count": facts.committed,
                    "refused_count": facts.quarantined,
                },
            )

        self._check_rows("receipts", summaries, differ)

    def check_claims(
        self, summaries: Sequence[Mapping[str, Any]], source_id: str | None = None
    ) -> None:
        """Refuse a page of ``GET /v1/claims`` unless each claim is one its receipt's verified
        events hold, as listed; ``source_id`` (the list's filter) must be one it is bound to."""

        def differ(served: Mapping[str, Any]) -> Differ:
            def compare(facts: ReceiptFacts) -> list[str]:
                claim = facts.claims.get(str(served["claim_id"]))
                if claim is None:
                    return ["claim_id"]
                differing = _differ(served, {k: claim[k] for k in (*CLAIM_FIELDS, "recorded_at")})
                if source_id is not None and all(
                    src != source_id for _, src, _ in claim["bindings"]
                ):
                    differing.append("source_id")
                return differing

            return compare

        self._check_rows("receipt_claims", summaries, differ, "claim_id")

    def check_affected(
        self, entries: Sequence[Mapping[str, Any]], source_id: str, version: int
    ) -> None:
        """Refuse receipts listed as having stood on a source version (each with its standing
        and its committed claims bound there) unless their verified events hold them so."""

        def differ(served: Mapping[str, Any]) -> Differ:
            def compare(facts: ReceiptFacts) -> list[str]:
                differing = _differ(served, affected_standing(facts.row))
                listed = [
                    {**claim, "span_ids": sorted(claim["span_ids"])} for claim in served["claims"]
                ]
                if sorted(listed, key=lambda c: str(c["claim_id"])) != facts.stood_on(
                    source_id, version
                ):
                    differing.append("claims")
                return differing

            return compare

        self._check_rows("claim_bindings", entries, differ)

    def check_memory_uses(self, entries: Sequence[Mapping[str, Any]], memory_id: str) -> None:
        """Refuse receipts listed as having used a memory item (each with the version its pool
        sealed and its standing) unless their verified events hold them so."""

        def differ(served: Mapping[str, Any]) -> Differ:
            def compare(facts: ReceiptFacts) -> list[str]:
                differing = _differ(served, affected_standing(facts.row))
                if (memory_id, served["memory_version"]) not in facts.memory:
                    differing.append("memory_version")
                return differing

            return compare

        self._check_rows("receipt_memory", entries, differ)

    def check_review(self, entries: Sequence[Mapping[str, Any]]) -> None:
        """Refuse a page of the review queue unless each entry is a verdict its receipt's
        verified events record."""

        def differ(served: Mapping[str, Any]) -> Differ:
            def compare(facts: ReceiptFacts) -> list[str]:
                wanted = {k: served[k] for k in (*REVIEW_FIELDS, "judged_at")}
                if any(not _differ(wanted, judged) for judged in facts.judged):
                    return []
                return ["entry"]

            return compare

        self._check_rows("review_queue", entries, differ, "claim_id")

    def _check_rows(
        self,
        table: str,
        rows: Sequence[Mapping[str, Any]],
        differ: Callable[[Mapping[str, Any]], Differ],
        key: str = "receipt_id",
    ) -> None:
        """Refuse unless every row is its receipt's verified state, or its state as far as
        the receipts projection has applied its events (a row behind the log)."""
        if not rows:
            return
        facts = self._page([str(row["receipt_id"]) for row in rows])
        for row in rows:
            receipt_id = str(row["receipt_id"])
            what = {key: str(row[key])}
            found = facts.get(receipt_id)
            if found is None:
                _mismatch(table, what, ["receipt_id"])
            compare = differ(row)
            differing = compare(found)
            if differing and not self._behind(receipt_id, found, compare):
                _mismatch(table, what, differing)

    def _behind(self, receipt_id: str, facts: ReceiptFacts, compare: Differ) -> bool:
        """Whether the row is the receipt as far as the receipts projection has applied its
        events, short of what the verified events hold now (a row behind the log)."""
        aggregate = receipt_aggregate_id(receipt_id)
        horizon = self.horizon(aggregate)
        if not 0 < horizon < facts.version:
            return False
        events = self.histories([aggregate]).get(aggregate, [])[:horizon]
        return bool(events) and not compare(ReceiptFacts.of(events))

    def _page(self, receipt_ids: list[str]) -> dict[str, ReceiptFacts]:
        """The facts of each receipt of a page that the ledger holds, as stored now."""
        aggregates = {receipt_aggregate_id(r): r for r in dict.fromkeys(receipt_ids)}
        heads = self.heads(list(aggregates))
        found: dict[str, ReceiptFacts] = {}
        stale = []
        with self._lock:
            for aggregate, receipt_id in aggregates.items():
                remembered = self._facts.get(aggregate)
                if aggregate not in heads:
                    continue
                if remembered is not None and remembered.version == heads[aggregate]:
                    self._facts.move_to_end(aggregate)
                    found[receipt_id] = remembered
                else:
                    stale.append(aggregate)
        if stale:
            for aggregate, events in self.histories(stale).items():
                facts = ReceiptFacts.of(events)
                found[aggregates[aggregate]] = facts
                with self._lock:
                    self._facts[aggregate] = facts
                    self._facts.move_to_end(aggregate)
                    while len(self._facts) > REMEMBERED:
                        self._facts.popitem(last=False)
        return found
