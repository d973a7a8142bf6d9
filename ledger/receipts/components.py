"""The machinery a receipt records it was answered with, and the changes to it that expire it.

A receipt records its **model** (``{name, version}``, required), its **tools** (strings:
``name@version``, or a bare ``name`` whose version was not recorded) and, when the opening
gives it, its **context assembly** (``{name, version}``: the application's code that selected,
ordered and budgeted the context). Two signed changes expire the receipts that recorded them:

- a retired model or tool version (``provledger.component_version.retired``, an aggregate per
  kind, name and version): every receipt recording that version expires, ``model_retired`` or
  ``tool_retired``. A receipt recording the bare tool name cannot show it did not use the
  retired version, so it expires too (a wrong citation is worse than none);
- a context-assembly version declared in force (``provledger.context_assembly.declared``,
  then ``.changed``, an aggregate per assembly name): every receipt recording another version
  of that assembly expires, ``context_assembly_changed``.

The ledger's own parts are recorded too, but never change under a receipt: its context packet
format (``packet.format``) and its router (``route_decision.router``) are new formats or
router versions beside the old ones, never edits of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate

from ledger.errors import InvalidInput
from ledger.eventlog.aggregate import LedgerAggregate
from ledger.eventlog.topics import aggregate_topic

_COMPONENT_NAMESPACE = uuid5(NAMESPACE_URL, "https://provledger.dev/ns/component-version")
_ASSEMBLY_NAMESPACE = uuid5(NAMESPACE_URL, "https://provledger.dev/ns/context-assembly")
KINDS = ("model", "tool")
MAX_NAME = 200
MAX_REASON = 2000


@dataclass(frozen=True)
class Recorded:
    """One part a receipt records: its kind (``model``, ``tool``, ``context_assembly``), name
    and version (None: a tool recorded by its bare name)."""

    kind: str
    name: str
    version: str | None

    def to_row(self) -> dict[str, Any]:
        """The part as the read model keeps it."""
        return {"kind": self.kind, "name": self.name, "version": self.version}


def split_tool(tool: str) -> tuple[str, str | None]:
    """A recorded tool as (name, version): ``search@2.1`` is ``("search", "2.1")``, a bare
    ``search`` (or one whose ``@`` leaves an empty name or version) has no version."""
    name, at, version = tool.rpartition("@")
    if not at or not name or not version:
        return tool, None
    return name, version


def recorded_parts(context: dict[str, Any]) -> list[Recorded]:
    """Every model, tool and context-assembly version a receipt's context records."""
    model = context["model"]
    parts = [Recorded("model", str(model["name"]), str(model["version"]))]
    for tool in context["tools"]:
        name, version = split_tool(str(tool))
        parts.append(Recorded("tool", name, version))
    assembly = context.get("context_assembly")
    if assembly is not None:
        parts.append(Recorded("context_assembly", assembly["name"], assembly["version"]))
    return parts


def check_part(field: str, value: str) -> None:
    """A name or version as a retirement or declaration gives it: 1 to 200 characters, not
    blank, no control characters (422 naming the field)."""
    if not value.strip():
        raise InvalidInput(field, "non-empty", f"{field} is empty")
    if len(value) > MAX_NAME:
        raise InvalidInput(field, "max-length", f"{field} is at most {MAX_NAME} chars")
    if any(ord(c) < 32 or 0xD800 <= ord(c) <= 0xDFFF for c in value):
        raise InvalidInput(field, "printable", f"{field} has a control character")


def check_reason(reason: str) -> str:
    """A retirement's or declaration's reason: 1 to 2000 characters, trimmed."""
    if not reason.strip() or len(reason) > MAX_REASON:
        raise InvalidInput("reason", "length", f"reason must be 1 to {MAX_REASON} characters")
    try:
        reason.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput("reason", "utf-8", "reason has a lone surrogate") from None
    return reason.strip()


def component_aggregate_id(kind: str, name: str, version: str) -> UUID:
    """The aggregate id of a model or tool version."""
    return uuid5(_COMPONENT_NAMESPACE, f"{kind}\x00{name}\x00{version}")


def assembly_aggregate_id(name: str) -> UUID:
    """The aggregate id of a context assembly (one per name, across its versions)."""
    return uuid5(_ASSEMBLY_NAMESPACE, name)


@aggregate_topic("provledger.component_version")
class ComponentVersion(LedgerAggregate):
    """A model or tool version that was retired (it exists only once retired)."""

    class Retired(Aggregate.Created, LedgerAggregate.Event):
        """Every receipt recording this model or tool version expires; none opens with it."""

        TOPIC = "provledger.component_version.retired"
        kind: str
        name: str
        version: str
        reason: str

    def __init__(self, kind: str, name: str, version: str, reason: str) -> None:
        self.kind = kind
        self.name = name
        self.component_version = version  # ``version`` is the aggregate's own
        self.reason = reason

    @classmethod
    def retire(
        cls, kind: str, name: str, version: str, reason: str, actor: str
    ) -> ComponentVersion:
        """Retire a model or tool version."""
        return cls._create(
            cls.Retired,
            id=component_aggregate_id(kind, name, version),
            kind=kind,
            name=name,
            version=version,
            reason=reason,
            actor=actor,
        )


@aggregate_topic("provledger.context_assembly")
class ContextAssembly(LedgerAggregate):
    """A context assembly and the version of it in force."""

    class Declared(Aggregate.Created, LedgerAggregate.Event):
        """A version was first declared in force: receipts recording any other version of
        the assembly expire."""

        TOPIC = "provledger.context_assembly.declared"
        name: str
        version: str
        reason: str

    class Changed(LedgerAggregate.Event):
        """Another version was declared in force: receipts recording any other version
        expire."""

        TOPIC = "provledger.context_assembly.changed"
        version: str
        previous: str
        reason: str

        def apply(self, aggregate: ContextAssembly) -> None:
            aggregate.in_force = self.version

    def __init__(self, name: str, version: str, reason: str) -> None:
        self.name = name
        self.in_force = version  # the version in force (``version`` is the aggregate's own)

    @classmethod
    def declare(cls, name: str, version: str, reason: str, actor: str) -> ContextAssembly:
        """The first version of an assembly declared in force."""
        return cls._create(
            cls.Declared,
            id=assembly_aggregate_id(name),
            name=name,
            version=version,
            reason=reason,
            actor=actor,
        )

    def change(self, version: str, reason: str, actor: str) -> None:
        """Declare another version in force."""
        self.trigger_event(
            self.Changed, version=version, previous=self.in_force, reason=reason, actor=actor
        )


def retired_detail(
    kind: str, name: str, version: str, reason: str, recorded: str
) -> dict[str, Any]:
    """The detail of a ``model_retired`` or ``tool_retired`` expiry: the retired version, the
    retirement's reason and what the receipt recorded (a bare tool name, or the version)."""
    return {"kind": kind, "name": name, "version": version, "recorded": recorded, "reason": reason}


def changed_detail(name: str, recorded: str, in_force: str, reason: str) -> dict[str, Any]:
    """The detail of a ``context_assembly_changed`` expiry."""
    return {"name": name, "version": recorded, "in_force": in_force, "reason": reason}


def recorded_text(part: Recorded) -> str:
    """What the receipt recorded, as it recorded it (``search@2``, ``search``, ``1``)."""
    if part.kind == "tool":
        return part.name if part.version is None else f"{part.name}@{part.version}"
    return str(part.version)
