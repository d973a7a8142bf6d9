"""The access rule language: the default policy against a naive reference, rule order,
validation of published rules and of pins."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.access import DEFAULT_ACCESS_POLICY, AccessPolicy, Pins, Principal, SourceAccess, decide
from ledger.errors import InvalidInput

VALUES = st.lists(st.sampled_from(["a", "b", "c"]), max_size=3, unique=True).map(
    lambda v: tuple(sorted(v))
)
PRINCIPALS = st.builds(
    Principal,
    roles=VALUES,
    units=VALUES,
    groups=VALUES,
    purpose=st.sampled_from(["a", "b", "c"]),
    destination=st.sampled_from(["", "a"]),
)
ACCESS = st.builds(
    SourceAccess,
    classification=st.sampled_from(["", "restricted"]),
    units=VALUES,
    groups=VALUES,
    purposes=VALUES,
    jurisdictions=VALUES,
)


def naive_default(principal: Principal, access: SourceAccess) -> tuple[bool, str | None]:
    """The default policy as stated in docs/access.md, written out by hand."""
    if access.groups and not set(principal.groups) & set(access.groups):
        return False, "entitlement-group-mismatch"
    if access.purposes and principal.purpose not in access.purposes:
        return False, "entitlement-purpose-mismatch"
    return True, None


@given(PRINCIPALS, ACCESS)
def test_the_default_policy_agrees_with_its_naive_statement(
    principal: Principal, access: SourceAccess
) -> None:
    decision = decide(DEFAULT_ACCESS_POLICY, principal, access)
    assert (decision.allowed, decision.code) == naive_default(principal, access)
    assert decide(DEFAULT_ACCESS_POLICY, principal, access) == decision


def test_a_source_without_access_attributes_is_open_to_every_principal() -> None:
    decision = decide(DEFAULT_ACCESS_POLICY, Principal(purpose="x"), SourceAccess())
    assert decision.allowed
    assert decision.rule == "open"


def test_the_first_rule_that_applies_decides_and_is_named() -> None:
    policy = AccessPolicy.parse(
        "p",
        [
            {
                "id": "auditors",
                "effect": "allow",
                "when": [{"in": ["principal.roles", ["auditor"]]}],
            },
            {
                "id": "restricted",
                "effect": "deny",
                "code": "entitlement-classification",
                "when": [{"in": ["source.classification", ["restricted"]]}],
            },
            {"id": "rest", "effect": "allow"},
        ],
    )
    restricted = SourceAccess(classification="restricted")
    auditor = Principal(roles=("auditor",), purpose="p")
    assert decide(policy, auditor, restricted).rule == "auditors"
    denied = decide(policy, Principal(purpose="p"), restricted)
    assert (denied.allowed, denied.code, denied.rule) == (
        False,
        "entitlement-classification",
        "restricted",
    )


def test_no_applicable_rule_denies_with_the_fallback() -> None:
    policy = AccessPolicy.parse(
        "p",
        [
            {
                "id": "units",
                "effect": "allow",
                "when": [{"shares": ["principal.units", "source.units"]}],
            }
        ],
    )
    decision = decide(policy, Principal(purpose="p"), SourceAccess(units=("u1",)))
    assert (decision.allowed, decision.code, decision.rule) == (
        False,
        "entitlement-no-rule",
        "fallback",
    )


def test_rules_nest_not_at_most_four_deep() -> None:
    deep: dict[str, object] = {"has": "source.groups"}
    for _ in range(4):
        deep = {"not": deep}
    with pytest.raises(InvalidInput) as caught:
        AccessPolicy.parse("p", [{"id": "r", "effect": "allow", "when": [deep]}])
    assert caught.value.rule == "max-depth"


def test_duplicate_rule_ids_are_refused() -> None:
    rule = {"id": "r", "effect": "allow"}
    with pytest.raises(InvalidInput) as caught:
        AccessPolicy.parse("p", [rule, rule])
    assert (caught.value.field, caught.value.rule) == ("rules[1].id", "unique")


def test_attribute_values_are_short_tokens_named_by_field() -> None:
    with pytest.raises(InvalidInput) as caught:
        SourceAccess.parse({"groups": ["ok", "has space"], "colour": "red"})
    assert {(e["field"], e["rule"]) for e in caught.value.errors} == {
        ("access.groups[1]", "attribute-value"),
        ("access.colour", "known-field"),
    }


def test_pins_name_every_claim_beyond_them_and_leave_unpinned_dimensions_open() -> None:
    pins = Pins(groups=("support",), purposes=("qa",))
    claim = Principal(roles=("admin",), groups=("support", "legal"), purpose="audit")
    errors = pins.excess(claim)
    assert [e["field"] for e in errors] == ["principal.groups", "principal.purpose"]
    assert pins.excess(Principal(roles=("admin",), groups=("support",), purpose="qa")) == []
    assert Pins(groups=()).excess(Principal(groups=("any",), purpose="x"))[0]["rule"] == "pinned"


def test_in_lists_only_attribute_values() -> None:
    rule = {"id": "r", "effect": "allow", "when": [{"in": ["principal.roles", ["ok", "no way"]]}]}
    with pytest.raises(InvalidInput) as caught:
        AccessPolicy.parse("p", [rule])
    assert (caught.value.field, caught.value.rule) == ("rules[0].when[0].in[1]", "attribute-values")
