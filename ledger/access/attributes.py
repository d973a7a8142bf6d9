"""The attributes entitlement is decided on: a source's, a requester's and an API key's pins.

Every attribute value is a short token (:data:`VALUE_PATTERN`); lists are kept sorted and
without repeats, so the same attributes always have one JSON form (and one signature).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from ledger.errors import InvalidInput

VALUE_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/-]{0,63}$")
MAX_VALUES = 64
SOURCE_LISTS = ("units", "groups", "purposes", "jurisdictions")
PRINCIPAL_LISTS = ("roles", "units", "groups")
PIN_LISTS = ("roles", "units", "groups", "purposes", "destinations")


def _value(errors: list[dict[str, str]], name: str, value: object) -> str:
    if not isinstance(value, str) or not VALUE_PATTERN.match(value):
        errors.append(
            {
                "field": name,
                "rule": "attribute-value",
                "message": f"{name} must match {VALUE_PATTERN.pattern}",
            }
        )
        return ""
    return value


def _values(errors: list[dict[str, str]], name: str, raw: object) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list | tuple):
        errors.append({"field": name, "rule": "list", "message": f"{name} must be a list"})
        return ()
    if len(raw) > MAX_VALUES:
        errors.append(
            {"field": name, "rule": "max-items", "message": f"{name} has at most {MAX_VALUES}"}
        )
        return ()
    return tuple(sorted({_value(errors, f"{name}[{i}]", v) for i, v in enumerate(raw)}))


def _unknown(
    errors: list[dict[str, str]], where: str, raw: Mapping[str, Any], known: set[str]
) -> None:
    for key in sorted(set(raw) - known):
        errors.append(
            {"field": f"{where}.{key}", "rule": "known-field", "message": f"unknown field {key!r}"}
        )


@dataclass(frozen=True)
class SourceAccess:
    """Who a source is meant for. Empty everywhere (the default) means every principal."""

    classification: str = ""
    units: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    purposes: tuple[str, ...] = ()
    jurisdictions: tuple[str, ...] = ()

    @classmethod
    def parse(cls, raw: Mapping[str, Any] | None, where: str = "access") -> SourceAccess:
        """Validate a request's ``access`` object (every bad value named)."""
        if raw is None:
            return cls()
        errors: list[dict[str, str]] = []
        _unknown(errors, where, raw, {"classification", *SOURCE_LISTS})
        classification = raw.get("classification") or ""
        if classification:
            classification = _value(errors, f"{where}.classification", classification)
        lists = {name: _values(errors, f"{where}.{name}", raw.get(name)) for name in SOURCE_LISTS}
        if errors:
            raise InvalidInput.many(errors)
        return cls(classification, **lists)

    @classmethod
    def from_event(cls, stored: Mapping[str, Any] | None) -> SourceAccess:
        """Read the form :meth:`to_json` wrote (``None``: a source registered without access)."""
        if not stored:
            return cls()
        return cls(
            str(stored.get("classification", "")),
            *(tuple(stored.get(name, ())) for name in SOURCE_LISTS),
        )

    def to_json(self) -> dict[str, Any]:
        """The canonical JSON form recorded in events."""
        return {
            "classification": self.classification,
            **{name: list(getattr(self, name)) for name in SOURCE_LISTS},
        }

    @property
    def unrestricted(self) -> bool:
        """Whether no attribute is set."""
        return self == SourceAccess()


@dataclass(frozen=True)
class Principal:
    """On whose behalf evidence is asked for: roles, units, groups, purpose and destination."""

    roles: tuple[str, ...] = ()
    units: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    purpose: str = ""
    destination: str = ""

    @classmethod
    def parse(cls, raw: Mapping[str, Any], where: str = "principal") -> Principal:
        """Validate a request's ``principal`` object; ``purpose`` is required."""
        errors: list[dict[str, str]] = []
        _unknown(errors, where, raw, {*PRINCIPAL_LISTS, "purpose", "destination"})
        lists = {
            name: _values(errors, f"{where}.{name}", raw.get(name)) for name in PRINCIPAL_LISTS
        }
        purpose = _value(errors, f"{where}.purpose", raw.get("purpose"))
        destination = raw.get("destination") or ""
        if destination:
            destination = _value(errors, f"{where}.destination", destination)
        if errors:
            raise InvalidInput.many(errors)
        return cls(purpose=purpose, destination=destination, **lists)

    @classmethod
    def from_json(cls, stored: Mapping[str, Any]) -> Principal:
        """Read the form :meth:`to_json` wrote."""
        return cls(
            roles=tuple(stored.get("roles", ())),
            units=tuple(stored.get("units", ())),
            groups=tuple(stored.get("groups", ())),
            purpose=str(stored.get("purpose", "")),
            destination=str(stored.get("destination", "")),
        )

    def to_json(self) -> dict[str, Any]:
        """The canonical JSON form recorded on a receipt."""
        return {
            **{name: list(getattr(self, name)) for name in PRINCIPAL_LISTS},
            "purpose": self.purpose,
            "destination": self.destination,
        }


@dataclass(frozen=True)
class Pins:
    """What an API key may claim for its principals. ``None`` leaves a dimension open; a
    tuple (even an empty one) is everything the key may claim in it."""

    roles: tuple[str, ...] | None = None
    units: tuple[str, ...] | None = None
    groups: tuple[str, ...] | None = None
    purposes: tuple[str, ...] | None = None
    destinations: tuple[str, ...] | None = None

    @classmethod
    def parse(cls, raw: Mapping[str, Any] | None, where: str = "pins") -> Pins | None:
        """Validate pins given at issue (``None``: the key pins nothing)."""
        if raw is None:
            return None
        errors: list[dict[str, str]] = []
        _unknown(errors, where, raw, set(PIN_LISTS))
        values = {
            name: _values(errors, f"{where}.{name}", raw[name]) for name in PIN_LISTS if name in raw
        }
        if errors:
            raise InvalidInput.many(errors)
        return cls(**values)

    @classmethod
    def from_event(cls, stored: Mapping[str, Any] | None) -> Pins | None:
        """Read the form :meth:`to_json` wrote."""
        if stored is None:
            return None
        return cls(**{name: tuple(stored[name]) for name in PIN_LISTS if name in stored})

    def to_json(self) -> dict[str, list[str]]:
        """The pinned dimensions only, as recorded in the key's signed event."""
        return {
            f.name: list(getattr(self, f.name))
            for f in fields(self)
            if getattr(self, f.name) is not None
        }

    def principals(self) -> list[Principal]:
        """The principals a key with these pins may act for, one per pinned purpose and
        destination, with every pinned role, unit and group (an unpinned dimension claims
        nothing): what the key may read directly, without naming a principal."""
        return [
            Principal(
                roles=self.roles or (),
                units=self.units or (),
                groups=self.groups or (),
                purpose=purpose,
                destination=destination,
            )
            for purpose in self.purposes or ("",)
            for destination in self.destinations or ("",)
        ]

    def excess(self, principal: Principal) -> list[dict[str, str]]:
        """Every value ``principal`` claims beyond these pins, named by field."""
        errors: list[dict[str, str]] = []
        claimed: tuple[tuple[str, str, tuple[str, ...] | None, tuple[str, ...]], ...] = (
            ("roles", "roles", self.roles, principal.roles),
            ("units", "units", self.units, principal.units),
            ("groups", "groups", self.groups, principal.groups),
            ("purpose", "purposes", self.purposes, (principal.purpose,)),
            ("destination", "destinations", self.destinations, (principal.destination,)),
        )
        for name, pinned_name, pinned, values in claimed:
            if pinned is None:
                continue
            extra = [v for v in values if v and v not in pinned]
            if extra:
                errors.append(
                    {
                        "field": f"principal.{name}",
                        "rule": "pinned",
                        "message": f"this API key does not pin {name} {extra!r} "
                        f"(pinned {pinned_name}: {list(pinned)!r})",
                    }
                )
        return errors
