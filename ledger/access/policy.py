"""The access rule language and its evaluation: first matching rule decides, no scores.

A policy is an ordered list of rules (documented in ``docs/access.md``)::

    {"id": "groups", "effect": "deny", "code": "entitlement-group-mismatch",
     "when": [{"has": "source.groups"},
              {"not": {"shares": ["principal.groups", "source.groups"]}}]}

A rule applies when every condition of ``when`` holds (an empty ``when`` always applies). The
conditions are

- ``{"has": A}``: attribute ``A`` is not empty;
- ``{"in": [A, [v, ...]]}``: some value of ``A`` is one of the listed values;
- ``{"shares": [A, B]}``: ``A`` and ``B`` have a value in common;
- ``{"not": C}``: condition ``C`` does not hold;

over the attributes in :data:`ATTRIBUTES` (a single-valued attribute counts as a list of one
value, or of none when empty). The first rule that applies decides; when none does, the
policy's fallback denies with ``entitlement-no-rule``. A deny carries a safe exclusion code
(``entitlement-...``): it names the kind of mismatch, never the source or its attributes.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ledger.access.attributes import MAX_VALUES, VALUE_PATTERN, Pins, Principal, SourceAccess
from ledger.errors import InvalidInput

ATTRIBUTES = (
    "principal.roles",
    "principal.units",
    "principal.groups",
    "principal.purpose",
    "principal.destination",
    "source.classification",
    "source.units",
    "source.groups",
    "source.purposes",
    "source.jurisdictions",
)
RULE_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
SAFE_CODE = re.compile(r"^entitlement-[a-z0-9][a-z0-9-]{0,51}$")
NO_RULE = "entitlement-no-rule"
FALLBACK_RULE = "fallback"
MAX_RULES = 200
MAX_CONDITIONS = 16
MAX_DEPTH = 4


@dataclass(frozen=True)
class AccessDecision:
    """What a policy decided for one principal and one source, and the rule that decided."""

    allowed: bool
    code: str | None
    rule: str

    def to_json(self) -> dict[str, Any]:
        """The decision as recorded."""
        return {"allowed": self.allowed, "code": self.code, "rule": self.rule}


Check = Callable[[Principal, SourceAccess], bool]


@dataclass(frozen=True)
class AccessRule:
    """One rule: its id, effect, safe code (deny only) and conditions (JSON form), with the
    conditions compiled once into checks."""

    id: str
    effect: str
    code: str | None
    when: tuple[Mapping[str, Any], ...]
    checks: tuple[Check, ...] = field(default=(), compare=False, repr=False)

    def applies(self, principal: Principal, access: SourceAccess) -> bool:
        """Whether every condition holds."""
        return all(check(principal, access) for check in self.checks)

    def to_json(self) -> dict[str, Any]:
        """The rule as published."""
        body: dict[str, Any] = {"id": self.id, "effect": self.effect, "when": list(self.when)}
        if self.code is not None:
            body["code"] = self.code
        return body


@dataclass(frozen=True)
class AccessPolicy:
    """An ordered, versioned rule list."""

    version: str
    rules: tuple[AccessRule, ...]

    @classmethod
    def parse(cls, version: str, raw: object, where: str = "rules") -> AccessPolicy:
        """Validate a rule list, naming every bad rule and condition."""
        errors: list[dict[str, str]] = []
        if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_RULES:
            raise InvalidInput(where, "count", f"{where} is a list of 1 to {MAX_RULES} rules")
        rules: list[AccessRule] = []
        seen: set[str] = set()
        for index, item in enumerate(raw):
            rule = _rule(errors, f"{where}[{index}]", item)
            if rule is not None:
                if rule.id in seen:
                    errors.append(
                        {
                            "field": f"{where}[{index}].id",
                            "rule": "unique",
                            "message": f"rule id {rule.id!r} is used twice",
                        }
                    )
                seen.add(rule.id)
                rules.append(rule)
        if errors:
            raise InvalidInput.many(errors)
        return cls(version, tuple(rules))

    def rules_json(self) -> list[dict[str, Any]]:
        """The rules as published."""
        return [rule.to_json() for rule in self.rules]


def _error(errors: list[dict[str, str]], field: str, rule: str, message: str) -> None:
    errors.append({"field": field, "rule": rule, "message": message})


def _rule(errors: list[dict[str, str]], where: str, raw: object) -> AccessRule | None:
    if not isinstance(raw, Mapping):
        _error(errors, where, "object", f"{where} must be an object")
        return None
    before = len(errors)
    for key in sorted(set(raw) - {"id", "effect", "code", "when"}):
        _error(errors, f"{where}.{key}", "known-field", f"unknown field {key!r}")
    rule_id = raw.get("id")
    if not isinstance(rule_id, str) or not RULE_ID.match(rule_id) or rule_id == FALLBACK_RULE:
        _error(errors, f"{where}.id", "rule-id", f"id must match {RULE_ID.pattern}, not fallback")
    effect = raw.get("effect")
    code = raw.get("code")
    if effect == "deny":
        if not isinstance(code, str) or not SAFE_CODE.match(code):
            _error(errors, f"{where}.code", "safe-code", f"a deny needs a code {SAFE_CODE.pattern}")
    elif effect == "allow":
        if code is not None:
            _error(errors, f"{where}.code", "allow-has-no-code", "an allow rule has no code")
    else:
        _error(errors, f"{where}.effect", "known-effect", "effect is allow or deny")
    when = raw.get("when", [])
    if not isinstance(when, list) or len(when) > MAX_CONDITIONS:
        _error(errors, f"{where}.when", "list", f"when is a list of at most {MAX_CONDITIONS}")
        when = []
    for index, condition in enumerate(when):
        _condition(errors, f"{where}.when[{index}]", condition, 1)
    if len(errors) > before:
        return None
    conditions = tuple(copy.deepcopy(when))
    return AccessRule(
        str(rule_id), str(effect), code, conditions, tuple(_compile(c) for c in conditions)
    )


def _attribute(errors: list[dict[str, str]], where: str, name: object) -> None:
    if name not in ATTRIBUTES:
        _error(errors, where, "known-attribute", f"attribute must be one of {list(ATTRIBUTES)}")


def _condition(errors: list[dict[str, str]], where: str, raw: object, depth: int) -> None:
    if not isinstance(raw, Mapping) or len(raw) != 1:
        _error(
            errors, where, "condition", "a condition is an object with one of has, in, shares, not"
        )
        return
    ((operator, operand),) = raw.items()
    if operator == "has":
        _attribute(errors, f"{where}.has", operand)
    elif operator == "in":
        if not (isinstance(operand, list) and len(operand) == 2 and isinstance(operand[1], list)):
            _error(errors, f"{where}.in", "pair", "in is [attribute, [values]]")
            return
        _attribute(errors, f"{where}.in[0]", operand[0])
        values = operand[1]
        if not 1 <= len(values) <= MAX_VALUES or not all(
            isinstance(v, str) and VALUE_PATTERN.match(v) for v in values
        ):
            _error(
                errors,
                f"{where}.in[1]",
                "attribute-values",
                f"in lists 1 to {MAX_VALUES} values matching {VALUE_PATTERN.pattern}",
            )
    elif operator == "shares":
        if not (isinstance(operand, list) and len(operand) == 2):
            _error(errors, f"{where}.shares", "pair", "shares is [attribute, attribute]")
            return
        _attribute(errors, f"{where}.shares[0]", operand[0])
        _attribute(errors, f"{where}.shares[1]", operand[1])
    elif operator == "not":
        if depth >= MAX_DEPTH:
            _error(errors, where, "max-depth", f"conditions nest at most {MAX_DEPTH} deep")
            return
        _condition(errors, f"{where}.not", operand, depth + 1)
    else:
        _error(errors, where, "known-operator", "operator is one of has, in, shares, not")


def _getter(name: str) -> Callable[[Principal, SourceAccess], frozenset[str]]:
    owner, attribute = name.split(".", 1)

    def values(principal: Principal, access: SourceAccess) -> frozenset[str]:
        value: str | Sequence[str] = getattr(
            principal if owner == "principal" else access, attribute
        )
        if isinstance(value, str):
            return frozenset((value,)) if value else frozenset()
        return frozenset(value)

    return values


def _compile(condition: Mapping[str, Any]) -> Check:
    """A validated condition as a check (see the module docstring for the meanings)."""
    ((operator, operand),) = condition.items()
    if operator == "has":
        get = _getter(operand)
        return lambda p, a: bool(get(p, a))
    if operator == "in":
        get, wanted = _getter(operand[0]), frozenset(operand[1])
        return lambda p, a: not get(p, a).isdisjoint(wanted)
    if operator == "shares":
        left, right = _getter(operand[0]), _getter(operand[1])
        return lambda p, a: not left(p, a).isdisjoint(right(p, a))
    inner = _compile(operand)
    return lambda p, a: not inner(p, a)


def decide(policy: AccessPolicy, principal: Principal, access: SourceAccess) -> AccessDecision:
    """The decision of the first rule of ``policy`` that applies (deterministic)."""
    for rule in policy.rules:
        if rule.applies(principal, access):
            if rule.effect == "allow":
                return AccessDecision(True, None, rule.id)
            return AccessDecision(False, rule.code, rule.id)
    return AccessDecision(False, NO_RULE, FALLBACK_RULE)


def pins_may_see(pins: Pins | None, access: SourceAccess, policy: AccessPolicy) -> bool:
    """Whether some principal a key with ``pins`` may act for (:meth:`Pins.principals`) is
    entitled to a source with ``access`` under ``policy`` (a key without pins is a trusted
    application: always)."""
    if pins is None:
        return True
    return any(decide(policy, p, access).allowed for p in pins.principals())


DEFAULT_POLICY_VERSION = "default"
DEFAULT_ACCESS_POLICY = AccessPolicy.parse(
    DEFAULT_POLICY_VERSION,
    [
        {
            "id": "groups",
            "effect": "deny",
            "code": "entitlement-group-mismatch",
            "when": [
                {"has": "source.groups"},
                {"not": {"shares": ["principal.groups", "source.groups"]}},
            ],
        },
        {
            "id": "purposes",
            "effect": "deny",
            "code": "entitlement-purpose-mismatch",
            "when": [
                {"has": "source.purposes"},
                {"not": {"shares": ["principal.purpose", "source.purposes"]}},
            ],
        },
        {"id": "open", "effect": "allow", "when": []},
    ],
)
"""Groups and purposes restrict when set; a source without access attributes is open."""
