"""The composition root: every long-lived object of a running provledger is built here.

:func:`build_services` turns :class:`~api.settings.Settings` into :class:`Services`: the open
ledger, the read side, the receipt, repair and expiry desks, and the event processors. The
FastAPI lifespan (``api.main``) and every CLI command (``api.cli``) call it; nothing else
constructs these objects. Parts a command does not touch (the read side and what hangs off it)
are built on first use, so ``provledger keys list`` opens no read-model database.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

from api import metrics
from api.metrics import MeteredReceiptDesk
from api.service_options import entailment_verifier, gate_config, witness_submitter
from api.settings import Settings
from ledger.access.attributes import Pins, Principal
from ledger.access.policy_desk import PolicyDesk
from ledger.attribution.locate_desk import LocateDesk
from ledger.audit.keyring_desk import KeyringDesk
from ledger.audit.verified_reads import EventChecks
from ledger.crypto.hmac_keys import open_hmac_key
from ledger.eventlog.application import Ledger
from ledger.eventlog.event_desk import EventDesk
from ledger.keys.api_key_desk import ApiKeyDesk
from ledger.keys.cache import KeyCache
from ledger.memory.memory_desk import MemoryDesk
from ledger.memory.sources import SourceChecks
from ledger.receipts.claim_facts import ReceiptClaims
from ledger.receipts.component_desk import ComponentDesk
from ledger.receipts.expiry_desk import ExpiryDesk
from ledger.receipts.outcome_desk import OutcomeDesk
from ledger.receipts.receipt_desk import ReceiptDesk
from ledger.receipts.repair_desk import RepairDesk
from ledger.receipts.sight import KeySight
from ledger.receipts.transformation_desk import TransformationDesk
from ledger.receipts.usage_desk import UsageDesk
from ledger.registry.evidence import ResolvedSpan
from ledger.registry.ingestion import Limits
from ledger.registry.source_desk import SourceDesk
from ledger.retrieval.dense import shared_embedder
from ledger.retrieval.retrieval_desk import RetrievalDesk
from ledger.retrieval.retriever import HybridRetriever
from ledger.retrieval.visibility import FilterFactory, RetrievalEntitlement, allow_all
from ledger.runtime import LedgerRuntime
from processes.change_desk import ChangeDesk
from processes.entailment_sampler import EntailmentSampler
from processes.expiry import ExpiryProcess
from processes.source_change_desk import SourceChangeDesk
from processes.witness_submitter import WitnessSubmitter
from projections.affected_read_desk import AffectedReadDesk
from projections.audit_read_desk import AuditReadDesk
from projections.claim_read_desk import ClaimReadDesk
from projections.console_read_desk import ConsoleReadDesk
from projections.database import ensure_postgres_schema, setup_lock
from projections.engagement_desk import EngagementDesk
from projections.log_rows import notification_id_of
from projections.memory_queries import receipt_of_claim
from projections.memory_read_desk import MemoryReadDesk
from projections.provenance_read_desk import ProvenanceReadDesk
from projections.receipt_read_desk import ReceiptReadDesk
from projections.replay_read_desk import ReplayReadDesk
from projections.review_read_desk import ReviewReadDesk
from projections.service import ReadSide
from projections.source_read_desk import SourceReadDesk
from projections.span_read_desk import SpanReadDesk
from projections.span_resolver import spans_in_range
from projections.usage_read_desk import UsageReadDesk


def open_ledger(settings: Settings) -> LedgerRuntime:
    """Load or create the signing key, prepare the database and open the application."""
    keystore = settings.keystore()
    signing_key, keyring = keystore.open()
    hmac_key = open_hmac_key(settings.keys_dir, settings.hmac_key_file)
    database = settings.database()
    if database.kind == "sqlite":
        assert database.sqlite_path is not None
        database.sqlite_path.parent.mkdir(parents=True, exist_ok=True)
    limits = Limits(settings.max_text_bytes, settings.max_sentence_chars)
    checks = EventChecks(keyring, keystore.load_keyring, locate=notification_id_of)
    # The schema and the event store's tables are created by whichever process opens the
    # ledger first; others starting at the same moment wait for it (setup_lock).
    with setup_lock(database):
        ensure_postgres_schema(database)
        ledger = Ledger(signing_key, database.eventsourcing_env(), checks)
    key_lease = settings.key_lease_ms / 1000
    cache = KeyCache(
        ledger.recorder.select_events,
        lambda key_id, rows: ledger.checks.check(ledger.recorder, key_id, rows, 1),
        lease=key_lease,
    )
    api_keys = ApiKeyDesk(ledger, cache)
    if api_keys.cache is not None:
        api_keys.cache.on_lookup = _count_key_lookup
    policies = PolicyDesk(ledger)
    return LedgerRuntime(
        ledger=ledger,
        keyring=keyring,
        keystore=keystore,
        database=database,
        hmac_key=hmac_key,
        limits=limits,
        key_lease=key_lease,
        api_keys=api_keys,
        policies=policies,
        components=ComponentDesk(ledger),
        sources=SourceDesk(ledger, limits, lambda: policies.in_force().policy),
    )


def _count_key_lookup(hit: bool) -> None:
    """Count an API-key cache lookup in the process's metrics."""
    if hit:
        metrics.key_cache_hit()
    else:
        metrics.key_cache_miss()


class Services:
    """One ledger's application services and processes, wired once.

    ``owned`` says whether :meth:`close` also closes the runtime (a test may share one).
    """

    def __init__(self, settings: Settings, runtime: LedgerRuntime, owned: bool) -> None:
        self.settings = settings
        self.runtime = runtime
        self.owned = owned
        self.expiry_desk = ExpiryDesk(runtime.ledger)
        self.source_filters: FilterFactory = allow_all
        """Builds an extra visibility filter for a retrieval's principal, asked after the
        access policy has decided (``POST /v1/retrieve``; docs/retrieval.md#entitlements)."""

    @property
    def ledger(self) -> Ledger:
        """The ledger application (commit, read, position)."""
        return self.runtime.ledger

    @property
    def sources(self) -> SourceDesk:
        """Register sources, add versions, withdraw, ingest in batches."""
        return self.runtime.sources

    @property
    def api_keys(self) -> ApiKeyDesk:
        """Issue, revoke, authenticate and list API keys."""
        return self.runtime.api_keys

    @property
    def policies(self) -> PolicyDesk:
        """Publishes access policies and knows the one in force."""
        return self.runtime.policies

    @cached_property
    def sight(self) -> KeySight:
        """What a key with pins may see (``ledger/receipts/sight.py``)."""
        return KeySight(self.policies, self.ledger, self.read_side.span_resolver.find_access)

    @cached_property
    def read_side(self) -> ReadSide:
        """The read models, their runners and the verified span resolver."""
        return ReadSide(
            self.ledger,
            self.runtime.database,
            self.settings.log_origin,
            self.runtime.keyring,
            self.settings.data_dir / "retrieval-index",
        )

    @cached_property
    def receipts(self) -> ReceiptDesk:
        """Opens receipts and commits claims through the gate."""
        return MeteredReceiptDesk(
            self.ledger,
            self.read_side.span_resolver,
            gate_config(self.settings),
            self.expiry_desk,
            self.policies,
            self.runtime.components,
            memory=self.memory,
        )

    @cached_property
    def memory(self) -> MemoryDesk:
        """Records, corrects and revokes memory items; decides who may see one."""
        claims = ReceiptClaims(lambda: self.receipts, self._locate_claim)
        checks = SourceChecks(
            self.read_side.span_resolver, claims, self.sight.policy, self.sight.access
        )
        return MemoryDesk(self.ledger, checks)

    def _locate_claim(self, claim_id: str) -> str | None:
        """The receipt holding ``claim_id``, by the receipts read model brought up to date."""
        self.read_side.receipts.catch_up()
        return receipt_of_claim(self.read_side.db.reads, claim_id)

    @cached_property
    def usage(self) -> UsageDesk:
        """Records an inference's prompt-cache usage on its receipt."""
        return UsageDesk(self.receipts)

    @cached_property
    def retrieval(self) -> RetrievalDesk:
        """Hybrid retrieval over the registry, each retrieval recorded in the ledger."""
        read_side = self.read_side

        def entitlements(
            pins: Pins | None,
            principal: Principal,
            policy_version: str | None,
            source_ids: Sequence[str] | None,
        ) -> RetrievalEntitlement:
            return self.sight.for_retrieval(
                pins, principal, policy_version, source_ids, read_side.span_resolver.source_access
            )

        return RetrievalDesk(
            self.ledger,
            read_side.retrieval_index,
            HybridRetriever(shared_embedder()),
            read_side.span_resolver,
            entitlements,
            self.source_filters,
        )

    @cached_property
    def outcomes(self) -> OutcomeDesk:
        """Records receipts' outcomes and reads what hangs off them."""
        return OutcomeDesk(self.receipts)

    @cached_property
    def locate(self) -> LocateDesk:
        """Locates answer sentences on the spans of their cited chunks, for a key's sight."""
        read_side = self.read_side

        def ranges(source_id: str, version: int, start: int, end: int) -> list[ResolvedSpan]:
            return spans_in_range(read_side.db.sync, source_id, version, start, end)

        return LocateDesk(read_side.span_resolver, ranges, self.sight.seer)

    @cached_property
    def audit_reads(self) -> AuditReadDesk:
        """Checkpoints, proofs and bundles of the transparency log."""
        return AuditReadDesk(self.read_side, self.runtime, self.witness)

    @cached_property
    def provenance(self) -> ProvenanceReadDesk:
        """PROV-JSON exports of receipts and sources."""
        return ProvenanceReadDesk(self.ledger, self.read_side)

    @cached_property
    def events(self) -> EventDesk:
        """The notification log in pages."""
        return EventDesk(self.ledger)

    @cached_property
    def public_keys(self) -> KeyringDesk:
        """The published keys and the envelope checks made with them."""
        return KeyringDesk(self.runtime.keystore.load_keyring, self.runtime.hmac_key)

    @cached_property
    def usage_reads(self) -> UsageReadDesk:
        """Prompt-cache usage per stable prefix."""
        return UsageReadDesk(self.read_side)

    @cached_property
    def engagement(self) -> EngagementDesk:
        """Counts readers' engagement with citations (the console's beacon)."""
        return EngagementDesk(self.read_side)

    @cached_property
    def console_reads(self) -> ConsoleReadDesk:
        """The console's receipt and source pages."""
        return ConsoleReadDesk(self.read_side, self.receipts, self.ledger)

    @cached_property
    def replay(self) -> ReplayReadDesk:
        """The ledger as of a moment (the console's replay page)."""
        return ReplayReadDesk(self.read_side)

    @cached_property
    def repairs(self) -> RepairDesk:
        """Re-attributes claims to better spans."""
        return RepairDesk(self.receipts)

    @cached_property
    def transformations(self) -> TransformationDesk:
        """Checks transformations of a receipt's evidence against their loss boundary and
        records them."""
        return TransformationDesk(self.receipts)

    @cached_property
    def expiry(self) -> ExpiryProcess:
        """The expiry process over the read side."""
        return ExpiryProcess(self.read_side, self.expiry_desk)

    @cached_property
    def source_reads(self) -> SourceReadDesk:
        """Reads sources and versions from the registry, as a key may see them."""
        return SourceReadDesk(self.read_side, self.sight)

    @cached_property
    def span_reads(self) -> SpanReadDesk:
        """Reads spans (by id, range, table cell, quote), as a key may see them."""
        return SpanReadDesk(self.read_side, self.sight)

    @cached_property
    def source_changes(self) -> SourceChangeDesk:
        """Source writes, answered once the read side shows them and their expiries."""
        return SourceChangeDesk(
            self.sources, self.expiry, self.read_side, self.source_reads, self.affected_read
        )

    @cached_property
    def entailment(self) -> EntailmentSampler | None:
        """The entailment sampler, when an entailment tier is configured."""
        verifier = entailment_verifier(self.settings)
        if verifier is None:
            return None
        return EntailmentSampler(self.read_side, verifier, self.settings.entailment_sample_rate)

    @cached_property
    def witness(self) -> WitnessSubmitter | None:
        """The witness submitter, when ``PROVLEDGER_WITNESS_URL`` is set."""
        return witness_submitter(self.settings, self.read_side)

    @cached_property
    def claim_reads(self) -> ClaimReadDesk:
        """Lists claims and renders one with its bindings (``GET /v1/claims...``)."""
        return ClaimReadDesk(self.read_side, self.sight, self.receipts)

    @cached_property
    def receipt_reads(self) -> ReceiptReadDesk:
        """Lists receipts, seals one as an envelope, renders its context packet."""
        return ReceiptReadDesk(self.read_side, self.sight, self.receipts, self.runtime)

    @cached_property
    def review_reads(self) -> ReviewReadDesk:
        """Reads the review queue (``GET /v1/review``)."""
        return ReviewReadDesk(self.read_side)

    @cached_property
    def affected_read(self) -> AffectedReadDesk:
        """The affected and expired lists of receipts, as a key may see them."""
        return AffectedReadDesk(self.read_side, self.sight, self.receipts, self.outcomes)

    @cached_property
    def memory_read(self) -> MemoryReadDesk:
        """The memory lists (items, the receipts that used one), as a key may see them."""
        return MemoryReadDesk(self.read_side, self.memory, self.sight, self.receipts, self.outcomes)

    @cached_property
    def changes(self) -> ChangeDesk:
        """Retirements, declarations and memory changes, answered once their expiries are
        recorded."""
        return ChangeDesk(
            self.runtime.components, self.expiry_desk, self.memory, self.expiry, self.affected_read
        )

    def follow(self) -> None:
        """Run the processes after each background catch-up of the read side."""
        self.read_side.followers.append(self.expiry.run_once)
        if self.entailment is not None:
            self.read_side.followers.append(self.entailment.run_once)
        if self.witness is not None:
            self.read_side.followers.append(self.witness.run_once)

    async def aclose(self) -> None:
        """Stop the read side (async engine included) and close what this owns."""
        if "read_side" in self.__dict__:
            await self.read_side.aclose()
        self._close_rest()

    def close(self) -> None:
        """Stop the read side and close what this owns (outside an event loop)."""
        if "read_side" in self.__dict__:
            self.read_side.close()
        self._close_rest()

    def _close_rest(self) -> None:
        witness = self.__dict__.get("witness")
        if witness is not None:
            witness.close()
        if self.owned:
            self.runtime.close()


def build_services(settings: Settings, runtime: LedgerRuntime | None = None) -> Services:
    """Open the ledger described by ``settings`` (or use ``runtime``) and wire its services."""
    if runtime is not None:
        return Services(settings, runtime, owned=False)
    return Services(settings, open_ledger(settings), owned=True)
