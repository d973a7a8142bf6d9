"""What the registry's reads serve, checked against the verified source events first.

The registry read model renders sources, versions, spans and claim citations; it is a table an
attacker with database access can edit, so nothing it renders is served until the source's
verified events (:class:`~ledger.registry.verified_spans.VerifiedSpans`) say the same: the
title, authority, URI and metadata, when it was registered, whether and when it was withdrawn
and why, its access attributes, and of each version its hash, title, media type, effective
interval, when it was recorded and superseded, its span count, segmenter and status; of a
cited span, its text, breadcrumb, page and the excerpt around it. As of ``known_at`` the check
is of what the ledger knew then. A difference refuses the read with ``read_model_mismatch``
(500 ``ledger-integrity``) naming the source and the fields; the edited value is never served.

A read model may be behind the log (another process wrote a version it has not applied yet).
Such a row is not an error: when a row differs, it is checked again against the source as the
events the registry projection has applied left it (its *horizon*, one query), so a row that
lacks only what the projection has not reached is served, and an erased withdrawal or version,
which the projection did apply, is refused.

Log positions (``position``) are the read model's bookkeeping of where an event sits in the
log; they are not checked here (``provledger verify --read-models`` compares every row).
"""

from __future__ import annotations

import hmac
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError

from ledger.access.attributes import SourceAccess
from ledger.errors import LedgerIntegrityError
from ledger.eventlog.clock import format_time
from ledger.registry.source import Source, VersionInfo, source_aggregate_id
from ledger.registry.verified_spans import MISMATCH, VerifiedSpans

Horizon = Callable[[UUID], int]
"""The highest version of a source aggregate the registry projection has applied."""
Heads = Callable[[list[UUID]], dict[UUID, int]]
"""The newest stored version of each of some source aggregates (one query for all)."""
REMEMBERED = 65_536
"""Folded sources (no texts: a few hundred bytes each) remembered to check rows against."""


def _mismatch(source_id: str, what: str, fields: Iterable[str]) -> NoReturn:
    raise LedgerIntegrityError(
        MISMATCH,
        f"registry {what} of {source_id!r}: the row's {', '.join(sorted(set(fields)))} "
        "differ from the signed events",
        {"table": "registry_sources", "source_id": source_id},
    )


def _known(moment: str | None, known_at: str | None) -> bool:
    return moment is not None and (known_at is None or moment <= known_at)


def _same(served: Any, expected: Any) -> bool:
    if isinstance(served, str) and isinstance(expected, str):
        return hmac.compare_digest(served.encode(), expected.encode())
    if isinstance(served, list | tuple) and isinstance(expected, list | tuple):
        return list(served) == list(expected)
    return bool(served == expected)


def _differ(served: Mapping[str, Any], expected: Mapping[str, Any]) -> list[str]:
    """The names of the fields ``served`` carries with another value than ``expected``."""
    return [k for k, v in expected.items() if k in served and not _same(served[k], v)]


@dataclass(frozen=True)
class _Seen:
    """A source as known at ``known_at``, as far as an aggregate version (all: ``None``)."""

    source: Source
    versions: list[VersionInfo]
    withdrawn: bool
    access: SourceAccess

    @classmethod
    def of(cls, source: Source, known_at: str | None, horizon: int | None) -> _Seen:
        def counts(recorded_at: str | None, event_version: int) -> bool:
            return _known(recorded_at, known_at) and (horizon is None or event_version <= horizon)

        access = source.registered_access
        for recorded_at, changed, event_version in source.access_history:
            if counts(recorded_at, event_version):
                access = changed
        return cls(
            source,
            [v for v in source.versions if counts(v.recorded_at, v.event_version)],
            counts(source.withdrawn_at, source.withdrawn_event),
            access,
        )

    def version(self, number: int) -> VersionInfo | None:
        return next((v for v in self.versions if v.version == number), None)

    def following(self, info: VersionInfo) -> VersionInfo | None:
        return self.version(info.version + 1)

    def status(self, info: VersionInfo) -> str:
        if self.withdrawn:
            return "withdrawn"
        return (
            "superseded"
            if self.versions and info.version < self.versions[-1].version
            else ("current")
        )

    def source_fields(self) -> dict[str, Any]:
        source, current = self.source, self.versions[-1] if self.versions else None
        return {
            "title": current.title if current is not None else source.title,
            "authority": source.authority,
            "uri": source.uri,
            "metadata": source.metadata,
            "registered_at": format_time(source.created_on),
            "status": "withdrawn" if self.withdrawn else "active",
            "withdrawn_at": source.withdrawn_at if self.withdrawn else None,
            "withdraw_reason": source.withdraw_reason if self.withdrawn else None,
            "current_version": None if current is None else current.version,
            "current_version_hash": None if current is None else current.version_hash,
            "current_effective_from": None if current is None else current.effective_from,
            "access": self.access.to_json(),
        }

    def version_fields(self, info: VersionInfo) -> dict[str, Any]:
        following = self.following(info)
        return {
            "version_hash": info.version_hash,
            "title": info.title,
            "media_type": info.media_type,
            "effective_from": info.effective_from,
            "effective_to": None if following is None else following.effective_from,
            "recorded_at": info.recorded_at,
            "superseded_at": None if following is None else following.recorded_at,
            "span_count": info.span_count,
            "segmenter": info.segmenter,
            "status": self.status(info),
        }


class ServedRows:
    """Checks registry rows about to be served against the verified source events.

    A list's rows are checked with one query for all their sources (``heads``): a source
    folded earlier from verified events and not written to since is checked as folded; one
    written to since is brought up to date through the verified reads."""

    def __init__(self, spans: VerifiedSpans, horizon: Horizon, heads: Heads) -> None:
        self.spans = spans
        self.horizon = horizon
        self.heads = heads
        self._lock = threading.Lock()
        self._folded: OrderedDict[UUID, Source] = OrderedDict()

    def check_sources(self, bodies: Iterable[Mapping[str, Any]]) -> None:
        """:meth:`check_source` of every row of a list, as known now."""
        rows = list(bodies)
        heads = self.heads([source_aggregate_id(str(b["source_id"])) for b in rows])
        for body in rows:
            self.check_source(body, None, heads)

    def check_source(
        self,
        body: Mapping[str, Any],
        known_at: str | None = None,
        heads: Mapping[UUID, int] | None = None,
    ) -> None:
        """Refuse a source as served (``GET /v1/sources/{id}``, a list's row, the console's
        page) unless its verified events hold it, as known at ``known_at``."""

        def differ(seen: _Seen) -> list[str]:
            differing = _differ(body, seen.source_fields())
            if "versions" in body:
                if [v["version"] for v in body["versions"]] != [v.version for v in seen.versions]:
                    return [*differing, "versions"]
                for served, info in zip(body["versions"], seen.versions, strict=True):
                    differing += _differ(served, seen.version_fields(info))
            return differing

        self._check(str(body["source_id"]), "source", known_at, differ, heads)

    def check_version(self, body: Mapping[str, Any], known_at: str | None = None) -> None:
        """Refuse a version as served (``GET /v1/sources/{id}/versions/{n}``) unless its
        verified events hold it (its frozen text and spans: ``VerifiedSpans.check_served``)."""

        def differ(seen: _Seen) -> list[str]:
            info = seen.version(body["version"])
            return ["version"] if info is None else _differ(body, seen.version_fields(info))

        self._check(str(body["source_id"]), f"version {body['version']}", known_at, differ)

    def check_span(self, body: Mapping[str, Any], known_at: str | None = None) -> None:
        """Refuse a span as served (``GET /v1/spans/{id}``) unless its source's verified
        events hold its source, version and status (its text: ``check_served``)."""

        def differ(seen: _Seen) -> list[str]:
            info = seen.version(body["version"])
            if info is None:
                return ["version"]
            fields = seen.version_fields(info)
            expected = {
                "source_title": seen.source_fields()["title"],
                "authority": seen.source.authority,
                "version_hash": info.version_hash,
                "effective_from": info.effective_from,
                "effective_to": fields["effective_to"],
                "status": fields["status"],
            }
            return _differ(body, expected)

        self._check(str(body["source_id"]), f"span {body.get('span_id')}", known_at, differ)

    def check_cited(self, versions: Iterable[Mapping[str, Any]]) -> None:
        """Refuse cited versions as the console dates them (``source_id``, ``version``, its
        title, interval and supersession, its source's withdrawal) unless the verified events
        hold them."""
        for cited in versions:

            def differ(seen: _Seen, cited: Mapping[str, Any] = cited) -> list[str]:
                info = seen.version(int(cited["version"]))
                if info is None:
                    return ["version"]
                return _differ(cited, {**seen.source_fields(), **seen.version_fields(info)})

            self._check(str(cited["source_id"]), f"version {cited['version']}", None, differ)

    def check_views(self, views: Iterable[Mapping[str, Any]], known_at: str | None = None) -> None:
        """Refuse claim citations as rendered (``GET /v1/claims/{id}``, the console's receipt
        page) unless each span's source, version, text, breadcrumb, page and excerpt are what
        the verified events hold (its status as known at ``known_at``)."""
        for view in views:
            source_id = str(view["source_id"])
            frozen = self.spans.frozen(source_id, int(view["version"]))
            span = frozen.spans.get(str(view["span_id"]))
            if span is None:
                _mismatch(source_id, "citation", ["span_id"])
            low = span.start - int(view["highlight"][0])
            cited = {
                "heading_path": list(span.heading_path),
                "page": span.page,
                "text": span.text,
                "excerpt": frozen.text[max(low, 0) : max(low, 0) + len(view["excerpt"])],
                "highlight": [span.start - max(low, 0), span.end - max(low, 0)],
            }
            differing = _differ(view, cited)
            if differing:
                _mismatch(source_id, f"citation {span.span_id}", differing)

            def differ(seen: _Seen, view: Mapping[str, Any] = view) -> list[str]:
                info = seen.version(int(view["version"]))
                if info is None:
                    return ["version"]
                following = _Seen.of(seen.source, None, None).following(info)
                expected = {
                    "title": info.title,
                    "uri": seen.source.uri,
                    "authority": seen.source.authority,
                    "version_hash": info.version_hash,
                    "version_date": info.effective_from,
                    "status": seen.status(info),
                }
                differing = _differ(view, expected)
                served_to = view.get("effective_to")
                if served_to is not None and (
                    following is None or served_to != following.effective_from
                ):
                    differing.append("effective_to")  # a row behind the log shows none
                return differing

            self._check(source_id, f"citation {span.span_id}", known_at, differ)

    def _check(
        self,
        source_id: str,
        what: str,
        known_at: str | None,
        differ: Callable[[_Seen], list[str]],
        heads: Mapping[UUID, int] | None = None,
    ) -> None:
        """Refuse unless the row is the source's verified state, or its state as far as the
        registry projection has applied its events (a row behind the log)."""
        source = self._source(source_id, what, heads)
        differing = differ(_Seen.of(source, known_at, None))
        if differing:
            horizon = self.horizon(source.id)
            if horizon < source.version:
                differing = differ(_Seen.of(source, known_at, horizon))
        if differing:
            _mismatch(source_id, what, differing)

    def _source(self, source_id: str, what: str, heads: Mapping[UUID, int] | None) -> Source:
        """The source folded from verified events, as stored now."""
        aggregate = source_aggregate_id(source_id)
        if heads is None:
            heads = self.heads([aggregate])
        with self._lock:
            folded = self._folded.get(aggregate)
        if folded is None or folded.version != heads.get(aggregate):
            try:
                folded = self.spans.sources.get(aggregate)
            except AggregateNotFoundError:
                _mismatch(source_id, what, ["source_id"])
            with self._lock:
                self._folded[aggregate] = folded
                self._folded.move_to_end(aggregate)
                while len(self._folded) > REMEMBERED:
                    self._folded.popitem(last=False)
        if folded.source_id != source_id:
            _mismatch(source_id, what, ["source_id"])
        return folded
