"""The access policy as a retrieval's source filter: one verified read per source, codes only."""

from __future__ import annotations

from ledger.access import DEFAULT_ACCESS_POLICY, Principal, SourceAccess
from ledger.access.source_filter import PolicyFilter
from ledger.retrieval.visibility import FirstRefusal

ACCESS = {
    "case-4471": SourceAccess(groups=("investigations",)),
    "memo": SourceAccess(purposes=("fraud-review",)),
    "open": SourceAccess(),
}


def _filter(principal: Principal, reads: list[str]) -> PolicyFilter:
    def source_access(source_id: str) -> SourceAccess:
        reads.append(source_id)
        return ACCESS[source_id]

    return PolicyFilter(DEFAULT_ACCESS_POLICY, principal, source_access)


def test_a_source_outside_the_principals_groups_is_withheld_under_the_rules_code() -> None:
    reads: list[str] = []
    support = _filter(Principal(groups=("support",), purpose="reporting"), reads)

    codes = [support.exclusion(s, v) for s, v in (("case-4471", 1), ("case-4471", 2), ("memo", 1))]

    assert codes == ["entitlement-group-mismatch", "entitlement-group-mismatch",
                     "entitlement-purpose-mismatch"]  # fmt: skip
    assert support.exclusion("open", 1) is None
    assert reads == ["case-4471", "memo", "open"]  # each source read once per request


def test_a_principal_in_the_group_sees_the_source() -> None:
    inside = _filter(Principal(groups=("investigations",), purpose="fraud-review"), [])

    assert [inside.exclusion(s, 1) for s in ACCESS] == [None, None, None]


def test_the_first_refusing_filter_gives_the_code() -> None:
    class Refuses:
        def exclusion(self, source_id: str, version: int) -> str | None:
            return "other-code"

    inside = _filter(Principal(groups=("investigations",), purpose="fraud-review"), [])
    support = _filter(Principal(groups=("support",), purpose="fraud-review"), [])

    assert FirstRefusal((inside, Refuses())).exclusion("open", 1) == "other-code"
    assert FirstRefusal((support, Refuses())).exclusion("case-4471", 1) == (
        "entitlement-group-mismatch"
    )
