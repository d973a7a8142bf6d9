"""W3C PROV export of a receipt's or a source's history, built from the signed events.

Entities: source versions, spans, claims, receipts. Activities: ingestion (a version added),
supersession, withdrawal, claim commit, repair, expiry. Agents: the API keys and processes
that acted (``key:<name>``, ``cli:...``, ``process:...``) and the receipt's own actor.
Relations: ``wasGeneratedBy``, ``used``, ``wasDerivedFrom``, ``wasAttributedTo``,
``wasAssociatedWith``, ``wasInvalidatedBy``. The format is PROV-JSON (W3C Member
Submission, 2013); ``jsonl`` gives the underlying signed events, one stored form per line.
"""

from __future__ import annotations

import json
import string
from collections.abc import Iterable
from typing import Any
from uuid import UUID

from sqlalchemy import Engine, select

from ledger.errors import NotFound
from ledger.eventlog.application import Ledger
from ledger.receipts.receipt import Receipt
from ledger.receipts.receipt_ids import receipt_aggregate_id
from ledger.registry.source import Source, source_aggregate_id
from projections.schema import claim_bindings, receipt_claims

NAMESPACE = "https://provledger.dev/ns/prov#"
_LITERAL = frozenset(string.ascii_letters + string.digits + "_-")


def local_part(path: str) -> str:
    """The local part of a ``pl:`` name for one of the ledger's paths (``claim/clm_...``,
    ``agent/key:ops``, ``source/report-2023/v1``): an XML NCName, as PROV-XML's ``prov:id`` and
    ``prov:ref`` (``xs:QName``) and PROV-N require. Every UTF-8 byte outside ``[A-Za-z0-9_-]`` is
    written as ``.`` and two upper-case hex digits (``/`` is ``.2F``, ``:`` is ``.3A``), so two
    paths never share a name and undoing the escapes gives the path back. A path starts with its
    kind, a letter."""
    if not path[:1].isascii() or not path[:1].isalpha():
        raise ValueError(f"a PROV path starts with its kind (got {path[:40]!r})")
    return "".join(
        chr(byte) if chr(byte) in _LITERAL else f".{byte:02X}" for byte in path.encode("utf-8")
    )


def qualified(name: str) -> str:
    """``pl:<path>`` with its path written as :func:`local_part` writes it."""
    prefix, _, path = name.partition(":")
    if prefix != "pl" or not path:
        raise ValueError(f"not a pl: name: {name[:40]!r}")
    return f"pl:{local_part(path)}"


def qname_value(name: str) -> dict[str, str]:
    """A PROV-JSON value typed as a qualified name (``xsd:QName``, PROV-JSON section 3.1.2):
    how ``prov:type`` is written, so PROV-XML and PROV-O read a type, not a string."""
    return {"$": name, "type": "xsd:QName"}


class ProvGraph:
    """Collects PROV-JSON records, naming each relation uniquely. Node names are given as
    ``pl:<path>`` and written QName-safe (:func:`qualified`); a ``prov:type`` given as a
    string is written as a qualified name (:func:`qname_value`)."""

    def __init__(self) -> None:
        self.doc: dict[str, Any] = {
            "prefix": {"pl": NAMESPACE, "xsd": "http://www.w3.org/2001/XMLSchema#"}
        }
        self._count = 0

    def _section(self, name: str) -> dict[str, Any]:
        section: dict[str, Any] = self.doc.setdefault(name, {})
        return section

    def node(self, kind: str, node_id: str, attributes: dict[str, Any] | None = None) -> str:
        """Add an entity, activity or agent (merging attributes); returns ``node_id``."""
        typed = dict(attributes or {})
        if isinstance(typed.get("prov:type"), str):
            typed["prov:type"] = qname_value(typed["prov:type"])
        self._section(kind).setdefault(qualified(node_id), {}).update(typed)
        return node_id

    def relation(self, kind: str, **ends: str) -> None:
        """Add one relation (``wasGeneratedBy``, ``used``, ...) between ``pl:`` names."""
        self._count += 1
        self._section(kind)[f"_:r{self._count}"] = {
            f"prov:{k}": qualified(v) for k, v in ends.items()
        }


def _time(body: dict[str, Any]) -> dict[str, Any]:
    return {"$": body["recorded_at"], "type": "xsd:dateTime"}


def _agent(graph: ProvGraph, actor: str) -> str:
    return graph.node("agent", f"pl:agent/{actor}", {"pl:actor": actor})


def _events(ledger: Ledger, aggregate_id: UUID) -> list[tuple[str, dict[str, Any], bytes]]:
    out = []
    stored_events = ledger.recorder.select_events(aggregate_id)
    ledger.checks.check(ledger.recorder, aggregate_id, stored_events, 1)  # serve only verified
    for stored in stored_events:
        out.append((stored.topic, json.loads(stored.state)["body"], stored.state))
    return out


def _source_history(graph: ProvGraph, ledger: Ledger, source_id: str) -> list[bytes]:
    events = _events(ledger, source_aggregate_id(source_id))
    if not events:
        raise NotFound(f"no source {source_id!r}")
    states = []
    for topic, body, state in events:
        states.append(state)
        payload = body["payload"]
        agent = _agent(graph, body["actor"])
        seq = body["originator_version"]
        if topic == Source.VersionAdded.TOPIC:
            version = payload["version"]
            entity = graph.node(
                "entity",
                f"pl:source/{source_id}/v{version}",
                {
                    "prov:type": "pl:SourceVersion",
                    "pl:version_hash": payload["version_hash"],
                    "pl:effective_from": payload["effective_from"],
                    "prov:label": payload["title"],
                },
            )
            activity = graph.node(
                "activity",
                f"pl:activity/{source_id}/{seq}/ingestion",
                {"prov:type": "pl:Ingestion", "prov:startTime": _time(body)["$"]},
            )
            graph.relation("wasGeneratedBy", entity=entity, activity=activity)
            graph.relation("wasAssociatedWith", activity=activity, agent=agent)
            graph.relation("wasAttributedTo", entity=entity, agent=agent)
            if version > 1:
                previous = f"pl:source/{source_id}/v{version - 1}"
                supersession = graph.node(
                    "activity",
                    f"pl:activity/{source_id}/{seq}/supersession",
                    {"prov:type": "pl:Supersession", "prov:startTime": _time(body)["$"]},
                )
                graph.relation("wasDerivedFrom", generatedEntity=entity, usedEntity=previous)
                graph.relation("used", activity=supersession, entity=previous)
                graph.relation("wasInvalidatedBy", entity=previous, activity=supersession)
                graph.relation("wasAssociatedWith", activity=supersession, agent=agent)
        elif topic == Source.Withdrawn.TOPIC:
            activity = graph.node(
                "activity",
                f"pl:activity/{source_id}/{seq}/withdrawal",
                {"prov:type": "pl:Withdrawal", "pl:reason": payload["reason"]},
            )
            graph.relation("wasAssociatedWith", activity=activity, agent=agent)
    return states


# Over 60 lines on purpose: one walk over a receipt's events, adding each to the PROV graph in
# order; the graph's node names tie the steps together.
def _receipt_history(
    graph: ProvGraph, ledger: Ledger, receipt_id: str
) -> tuple[list[bytes], set[str]]:
    events = _events(ledger, receipt_aggregate_id(receipt_id))
    if not events:
        raise NotFound(f"no receipt {receipt_id!r}")
    states, sources = [], set()
    receipt = f"pl:receipt/{receipt_id}"
    for topic, body, state in events:
        states.append(state)
        payload = body["payload"]
        agent = _agent(graph, body["actor"])
        seq = body["originator_version"]
        if topic == Receipt.Opened.TOPIC:
            context = payload["context"]
            graph.node(
                "entity",
                receipt,
                {
                    "prov:type": "pl:Receipt",
                    "pl:purpose": context["purpose"],
                    "pl:policy_version": context["policy_version"],
                    "pl:route": context["route"],
                    "pl:as_of": payload["as_of"],
                },
            )
            graph.relation("wasAttributedTo", entity=receipt, agent=_agent(graph, context["actor"]))
            graph.relation("wasAttributedTo", entity=receipt, agent=agent)
            for entry in payload["pool"]:
                span = _span(graph, entry["span_id"], entry["source_id"], entry["version"])
                graph.relation("wasDerivedFrom", generatedEntity=receipt, usedEntity=span)
                sources.add(entry["source_id"])
        elif topic in (Receipt.ClaimsCommitted.TOPIC, Receipt.ClaimsRejected.TOPIC):
            committed = topic == Receipt.ClaimsCommitted.TOPIC
            activity = graph.node(
                "activity",
                f"pl:activity/{receipt_id}/{seq}/commit",
                {
                    "prov:type": "pl:ClaimCommit" if committed else "pl:ClaimRejection",
                    "prov:startTime": _time(body)["$"],
                    "pl:mode": payload["mode"],
                },
            )
            graph.relation("wasAssociatedWith", activity=activity, agent=agent)
            graph.relation("used", activity=activity, entity=receipt)
            for claim in payload["claims"]:
                entity = graph.node(
                    "entity",
                    f"pl:claim/{claim['claim_id']}",
                    {
                        "prov:type": "pl:Claim",
                        "prov:value": claim["text"],
                        "pl:status": claim["status"],
                    },
                )
                graph.relation("wasGeneratedBy", entity=entity, activity=activity)
                graph.relation("wasAttributedTo", entity=entity, agent=agent)
                for binding in claim["bindings"]:
                    if binding["source_id"] is None:
                        continue
                    span = _span(
                        graph, binding["span_id"], binding["source_id"], binding["version"]
                    )
                    graph.relation("used", activity=activity, entity=span)
                    graph.relation("wasDerivedFrom", generatedEntity=entity, usedEntity=span)
                    sources.add(binding["source_id"])
        elif topic in (Receipt.ClaimRepaired.TOPIC, Receipt.RepairFailed.TOPIC):
            activity = graph.node(
                "activity",
                f"pl:activity/{receipt_id}/{seq}/repair",
                {
                    "prov:type": "pl:Repair",
                    "pl:ranker": payload["ranker"],
                    "pl:outcome": "repaired" if topic == Receipt.ClaimRepaired.TOPIC else "failed",
                },
            )
            graph.relation("wasAssociatedWith", activity=activity, agent=agent)
            claim = f"pl:claim/{payload['claim_id']}"
            graph.relation("used", activity=activity, entity=claim)
            if topic == Receipt.ClaimRepaired.TOPIC:
                new = payload["new_binding"]
                span = _span(graph, new["span_id"], new["source_id"], new["version"])
                graph.relation("used", activity=activity, entity=span)
                graph.relation("wasDerivedFrom", generatedEntity=claim, usedEntity=span)
        elif topic == Receipt.Expired.TOPIC:
            activity = graph.node(
                "activity",
                f"pl:activity/{receipt_id}/{seq}/expiry",
                {
                    "prov:type": "pl:Expiry",
                    "pl:reason": payload["reason"],
                    "prov:startTime": _time(body)["$"],
                },
            )
            graph.relation("wasAssociatedWith", activity=activity, agent=agent)
            graph.relation("wasInvalidatedBy", entity=receipt, activity=activity)
    return states, sources


def _span(graph: ProvGraph, span_id: str, source_id: str, version: int) -> str:
    span = graph.node("entity", f"pl:span/{span_id}", {"prov:type": "pl:Span"})
    graph.relation(
        "wasDerivedFrom", generatedEntity=span, usedEntity=f"pl:source/{source_id}/v{version}"
    )
    graph.node("entity", f"pl:source/{source_id}/v{version}", {"prov:type": "pl:SourceVersion"})
    return span


def receipt_provenance(ledger: Ledger, receipt_id: str) -> tuple[dict[str, Any], list[bytes]]:
    """PROV-JSON of a receipt (with the sources it stood on) and its signed events."""
    graph = ProvGraph()
    states, sources = _receipt_history(graph, ledger, receipt_id)
    for source_id in sorted(sources):
        states.extend(_source_history(graph, ledger, source_id))
    return graph.doc, states


def source_provenance(
    ledger: Ledger, engine: Engine, source_id: str
) -> tuple[dict[str, Any], list[bytes]]:
    """PROV-JSON of a source (its versions, and the receipts and claims that stood on it)."""
    graph = ProvGraph()
    states = _source_history(graph, ledger, source_id)
    with engine.connect() as conn:
        receipt_ids = conn.execute(
            select(receipt_claims.c.receipt_id)
            .join(claim_bindings, claim_bindings.c.claim_id == receipt_claims.c.claim_id)
            .where(claim_bindings.c.source_id == source_id)
            .distinct()
            .order_by(receipt_claims.c.receipt_id)
        ).scalars()
        found = [str(rid) for rid in receipt_ids]
    for receipt_id in found:
        receipt_states, _ = _receipt_history(graph, ledger, receipt_id)
        states.extend(receipt_states)
    return graph.doc, states


def jsonl(states: Iterable[bytes]) -> str:
    """The signed events, one stored form per line."""
    return "".join(state.decode("utf-8") + "\n" for state in states)
