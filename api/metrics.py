"""Prometheus metrics: what the API, the gate, the event store and the read side report.

Counters and histograms are module-level (``prometheus-client``); with
``PROMETHEUS_MULTIPROC_DIR`` set before the process starts, the library keeps them in files
there and :func:`exposition` sums every process's. What describes the ledger rather than a
process (projection lag, checkpoint size and age, witness state) is read when scraped, by
:class:`LedgerCollector`. Labels are bounded: a route's template (never the raw path), a
status code, an outcome, a gate reason code.

Other modules report through the functions here (``key_cache_hit()`` and
``key_cache_miss()`` for the API-key cache), so they need not know prometheus.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from threading import Thread
from typing import TYPE_CHECKING, Any, Protocol
from wsgiref.simple_server import WSGIServer

import structlog
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
    start_http_server,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from ledger.access.attributes import Pins
from ledger.errors import ConfigurationError
from ledger.receipts.receipt_desk import CommitRequest, CommitResult, ReceiptDesk
from projections.lag import projection_lag
from projections.transparency_queries import newest_checkpoint_time
from projections.usage_queries import PrefixUsage, top_prefixes, totals

if TYPE_CHECKING:
    from ledger.eventlog.application import Ledger
    from processes.witness_submitter import WitnessSubmitter
    from projections.service import ReadSide


class Services(Protocol):
    """What the collectors read of the composition root's services (``api.services``), named
    here so that the services may import this module and not the reverse."""

    @property
    def ledger(self) -> Ledger: ...

    @property
    def read_side(self) -> ReadSide: ...

    @property
    def witness(self) -> WitnessSubmitter | None: ...


__all__ = ["CONTENT_TYPE_LATEST", "key_cache_hit", "key_cache_miss"]

log = structlog.get_logger("provledger.metrics")

REQUESTS = Counter(
    "provledger_http_requests",
    "HTTP requests answered, by method, route template and status",
    ["method", "route", "status"],
)
REQUEST_SECONDS = Histogram(
    "provledger_http_request_duration_seconds",
    "HTTP request latency, by method, route template and status",
    ["method", "route", "status"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
COMMITS = Counter(
    "provledger_commits",
    "Claim commit requests by outcome: accepted, rejected, replayed, failed",
    ["outcome"],
)
GATE_CHECKS = Counter(
    "provledger_gate_checks",
    "Gate checks of committed requests' claims, by check, outcome and reason code",
    ["check", "outcome", "reason"],
)
APPEND_SECONDS = Histogram(
    "provledger_event_store_append_seconds",
    "Event-store append latency as a writer sees it (queueing for the group commit included)",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
)
GROUP_COMMIT_WRITES = Histogram(
    "provledger_event_store_group_commit_writes",
    "Writes inserted together by one group commit",
    buckets=(1, 2, 4, 8, 16, 32, 64, 128),
)
KEY_CACHE = Counter(
    "provledger_api_key_cache",
    "API-key authentications answered from the per-process cache (hit) or the store (miss)",
    ["result"],
)
UNMATCHED = "unmatched"
"""The route label of a request no route matched (the raw path is never a label)."""
PREFIX_SERIES = 20
"""Stable prefixes with a ``prefix`` label of their own (those with the most tokens); the
tokens of every other prefix are summed under ``prefix="other"``."""
OTHER_PREFIXES = "other"
TOKEN_KINDS = (
    ("read", "cache_read_tokens"),
    ("write", "cache_write_tokens"),
    ("input", "input_tokens"),
)
"""The ``kind`` label of the prompt-cache token counters and the count each reads."""


def key_cache_hit() -> None:
    """Count one authentication answered from the key cache."""
    KEY_CACHE.labels("hit").inc()


def key_cache_miss() -> None:
    """Count one authentication that had to read the key's events."""
    KEY_CACHE.labels("miss").inc()


def observe_request(method: str, route: str | None, status: int, seconds: float) -> None:
    """Count one answered request under its route template."""
    labels = (method, route or UNMATCHED, str(status))
    REQUESTS.labels(*labels).inc()
    REQUEST_SECONDS.labels(*labels).observe(seconds)


def observe_commit(result: CommitResult) -> None:
    """Count a commit's outcome and, unless replayed, every gate check of its claims."""
    if result.replayed:
        COMMITS.labels("replayed").inc()
        return
    COMMITS.labels("accepted" if result.accepted else "rejected").inc()
    body = result.body
    for group in ("committed", "quarantined", "rejected"):
        for claim in body.get(group) or ():
            for check in claim.get("checks") or ():
                GATE_CHECKS.labels(check["check"], check["outcome"], check["reason"]).inc()


class MeteredReceiptDesk(ReceiptDesk):
    """The receipt desk, counting each commit's outcome and gate checks."""

    def commit(
        self,
        receipt_id: str,
        request: CommitRequest,
        actor: str,
        idempotency_key: str | None,
        pins: Pins | None = None,
    ) -> CommitResult:
        """:meth:`ReceiptDesk.commit`, counted (a raised error counts as ``failed``)."""
        try:
            result = super().commit(receipt_id, request, actor, idempotency_key, pins)
        except Exception:
            COMMITS.labels("failed").inc()
            raise
        observe_commit(result)
        return result


def observe_store(services: Services) -> None:
    """Report the event store's append latency and group-commit sizes."""
    store: Any = services.ledger.events
    store.on_append = APPEND_SECONDS.observe
    store.on_group = GROUP_COMMIT_WRITES.observe


class LedgerCollector(Collector):
    """What describes the ledger, read when scraped (the same from every process)."""

    def __init__(self, services: Services) -> None:
        self.services = services

    def collect(self) -> Iterable[Metric]:
        """Projection lag and failure, checkpoint size and age, witness state."""
        services = self.services
        try:
            position = services.ledger.last_position()
        except Exception:  # /readyz names the failure; a scrape still answers
            return
        yield GaugeMetricFamily(
            "provledger_log_position", "Notification id of the newest event", value=position
        )
        lag = GaugeMetricFamily(
            "provledger_projection_lag_events",
            "Events in the log the projection has not applied yet",
            labels=["projection"],
        )
        lag_seconds = GaugeMetricFamily(
            "provledger_projection_lag_seconds",
            "Age of the oldest event the projection has not applied yet (0 when caught up)",
            labels=["projection"],
        )
        failing = GaugeMetricFamily(
            "provledger_projection_failing",
            "1 when the projection's last catch-up in this process failed",
            labels=["projection"],
        )
        for runner in services.read_side.runners:
            name = runner.projection.name
            behind = projection_lag(services.ledger, runner, position)
            lag.add_metric([name], behind.events)
            lag_seconds.add_metric([name], behind.seconds)
            failing.add_metric([name], 1 if runner.failure is not None else 0)
        yield lag
        yield lag_seconds
        yield failing
        yield from self._checkpoint()
        yield from self._prompt_cache()
        submitter = services.witness
        if submitter is not None:
            state = GaugeMetricFamily(
                "provledger_witness_state",
                "1 for the witness's current state (pending, cosigned, unavailable, refused)",
                labels=["state"],
            )
            for name in ("pending", "cosigned", "unavailable", "refused"):
                state.add_metric([name], 1 if submitter.status.state == name else 0)
            yield state
            if submitter.status.witnessed_size is not None:
                yield GaugeMetricFamily(
                    "provledger_witness_cosigned_size",
                    "Newest tree size the witness cosigned",
                    value=submitter.status.witnessed_size,
                )

    def _checkpoint(self) -> Iterator[Metric]:
        with self.services.read_side.db.sync.connect() as conn:
            row = newest_checkpoint_time(conn)
        if row is None:
            return
        size, created_at = row
        yield GaugeMetricFamily(
            "provledger_checkpoint_tree_size", "Tree size of the newest checkpoint", value=size
        )
        created = datetime.fromisoformat(created_at)
        if created.tzinfo is None:
            created = created.replace(tzinfo=UTC)
        yield GaugeMetricFamily(
            "provledger_checkpoint_age_seconds",
            "Seconds since the newest checkpoint was signed",
            value=max(0.0, (datetime.now(UTC) - created).total_seconds()),
        )

    def _prompt_cache(self) -> Iterator[Metric]:
        """Prompt-cache tokens recorded on receipts: in all, and per stable prefix for the
        :data:`PREFIX_SERIES` prefixes with the most tokens (the rest under ``other``), once
        the receipts read model has applied the log (usage recorded just before a scrape shows
        in it; a failing catch-up is reported by ``provledger_projection_failing``)."""
        read_side = self.services.read_side
        try:
            read_side.receipts.catch_up()
        except Exception as exc:  # the scrape still answers with what the model holds
            log.warning("prompt_cache_catch_up_failed", error=type(exc).__name__)
        with read_side.db.reads.connect() as conn:
            everything = totals(conn)
            top = top_prefixes(conn, PREFIX_SERIES)
        overall = CounterMetricFamily(
            "provledger_prompt_cache_tokens",
            "Prompt-cache tokens recorded on receipts: read from the cache, written to it, "
            "and input read uncached",
            labels=["kind"],
        )
        per_prefix = CounterMetricFamily(
            "provledger_prompt_cache_prefix_tokens",
            f"The same, per stable-prefix hash (first 16 hex digits) for the {PREFIX_SERIES} "
            "prefixes with the most tokens; every other prefix under prefix=other",
            labels=["prefix", "kind"],
        )
        calls = CounterMetricFamily(
            "provledger_prompt_cache_calls",
            "Inferences whose usage was recorded, per stable prefix (as above)",
            labels=["prefix"],
        )
        for kind, count in TOKEN_KINDS:
            overall.add_metric([kind], getattr(everything, count))
        rest = _rest(everything, top)
        for row in [*top, *([rest] if rest.calls else [])]:
            label = row.label if row is not rest else OTHER_PREFIXES
            for kind, count in TOKEN_KINDS:
                per_prefix.add_metric([label, kind], getattr(row, count))
            calls.add_metric([label], row.calls)
        yield overall
        yield per_prefix
        yield calls


def _rest(everything: PrefixUsage, top: list[PrefixUsage]) -> PrefixUsage:
    """The usage of every prefix not in ``top`` (``everything`` less ``top``)."""
    return PrefixUsage(
        OTHER_PREFIXES,
        everything.calls - sum(row.calls for row in top),
        everything.input_tokens - sum(row.input_tokens for row in top),
        everything.cache_write_tokens - sum(row.cache_write_tokens for row in top),
        everything.cache_read_tokens - sum(row.cache_read_tokens for row in top),
        everything.first_at,
        everything.last_at,
    )


class _Everything(Collector):
    """This process's metrics (or, in multiprocess mode, every process's) and the ledger's."""

    def __init__(self, services: Services) -> None:
        self.ledger = LedgerCollector(services)

    def collect(self) -> Iterable[Metric]:
        yield from process_metrics()
        yield from self.ledger.collect()


def process_metrics() -> Iterable[Metric]:
    """This process's counters and histograms, or every process's in multiprocess mode."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        processes = CollectorRegistry()
        multiprocess.MultiProcessCollector(processes)  # type: ignore[no-untyped-call]
        return processes.collect()
    return REGISTRY.collect()


def registry_for(services: Services) -> CollectorRegistry:
    """The registry ``/metrics`` and the separate metrics bind serve."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Everything(services))
    return registry


def exposition(registry: CollectorRegistry) -> bytes:
    """The text exposition format of ``registry``."""
    return generate_latest(registry)


def parse_metrics_addr(value: str) -> tuple[str, int]:
    """``PORT``, ``:PORT``, ``HOST:PORT`` or ``[IPv6]:PORT``; no host means 127.0.0.1."""
    host, sep, port = value.strip().rpartition(":")
    if not sep:
        host, port = "", value.strip()
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or int(port) > 65535:
        raise ConfigurationError(f"PROVLEDGER_METRICS_ADDR {value!r}: expected [HOST:]PORT")
    return host, int(port)


class MetricsServer:
    """The unauthenticated metrics bind (``PROVLEDGER_METRICS_ADDR``)."""

    def __init__(self, server: WSGIServer, thread: Thread) -> None:
        self.server = server
        self.thread = thread

    @property
    def port(self) -> int:
        """The bound port (useful when 0 was asked for)."""
        return int(self.server.server_address[1])

    def close(self) -> None:
        """Stop serving and release the port."""
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def serve_metrics(addr: str, registry: CollectorRegistry) -> MetricsServer | None:
    """Serve ``registry`` on ``addr``; None when another process of this service holds the
    port already (with several API processes one bind serves them all in multiprocess
    mode)."""
    host, port = parse_metrics_addr(addr)
    try:
        server, thread = start_http_server(port, host, registry=registry)
    except OSError as exc:
        log.warning("metrics_bind_taken", addr=f"{host}:{port}", error=str(exc))
        return None
    log.info("metrics_serving", addr=f"{host}:{server.server_address[1]}")
    return MetricsServer(server, thread)
