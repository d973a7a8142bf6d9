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

from ledger.access.attributes import Principal, SourceAccess
from ledger.access.policy import AccessPolicy, decide

DENIED = "entitlement-denied"
"""The code of a deny that names none (a policy's deny rules always do)."""


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
