"""An access policy as a retrieval's source filter: one decision per source, from verified
attributes.

Retrieval asks its filter about each candidate's source version before the candidate leaves
(``ledger.retrieval.visibility.SourceFilter``). :class:`PolicyFilter` answers with
:func:`~ledger.access.policy.decide` under the governing policy for the request's principal
(already bounded by its API key's pins), against the access attributes the source's verified
events hold now: the read model's access rows are never asked. A refusal is the rule's safe
code only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ledger.access.attributes import Pins, Principal, SourceAccess
from ledger.access.policy import AccessPolicy, decide, pins_may_see

DENIED = "entitlement-denied"
"""The code of a deny that names none (a policy's deny rules always do)."""
UNSEEN = "unseen"
"""The code of a source the API key's pins let it not see: withheld and never counted or
recorded (to that key the source does not exist)."""


@dataclass
class PolicyFilter:
    """Serves a source version when ``policy`` allows ``principal`` to see its source.

    ``source_access`` reads a source's attributes from its verified events
    (``VerifiedSpans.source_access``); each source is read once per filter (one request)."""

    policy: AccessPolicy
    principal: Principal
    source_access: Callable[[str], SourceAccess]
    _codes: dict[str, str | None] = field(default_factory=dict)

    def exclusion(self, source_id: str, version: int) -> str | None:
        """``None`` to serve, else the safe code of the rule that denied the source."""
        if source_id not in self._codes:
            decision = decide(self.policy, self.principal, self.source_access(source_id))
            self._codes[source_id] = None if decision.allowed else (decision.code or DENIED)
        return self._codes[source_id]


@dataclass
class PinnedFilter:
    """Withholds every source that an API key with ``pins`` may not see under ``policy``
    (``ledger/receipts/sight.py``), with the code :data:`UNSEEN`, which the retrieval drops
    from its exclusions: such a source is, to the key, one the ledger does not hold."""

    pins: Pins
    policy: AccessPolicy
    source_access: Callable[[str], SourceAccess | None]
    _seen: dict[str, bool] = field(default_factory=dict)

    def sees(self, source_id: str) -> bool:
        """Whether the key may see ``source_id`` (a source the ledger does not hold: no)."""
        if source_id not in self._seen:
            access = self.source_access(source_id)
            self._seen[source_id] = access is not None and pins_may_see(
                self.pins, access, self.policy
            )
        return self._seen[source_id]

    def exclusion(self, source_id: str, version: int) -> str | None:
        """``None`` to go on deciding, :data:`UNSEEN` to withhold without a word."""
        return None if self.sees(source_id) else UNSEEN
