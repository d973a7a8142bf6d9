"""Load what the gate reads once per process before the first claim arrives.

The first judgement in a process reads the WordNet antonym pointers (about a second) and fills
the gate's other per-process tables. Left to the first request, that second lands on a
caller's commit; the service calls :func:`warm_up` while it starts, before it reports ready.
"""

from __future__ import annotations

from ledger.gate.gate import judge
from ledger.gate.model import Binding, ClaimDraft, ClaimType, SpanFacts, Status

_SPAN = "Revenue rose from $4.0 million to $4.5 million in 2023, and the margin was not reduced."
_CLAIMS = (
    ClaimDraft(_SPAN, bindings=(Binding("warm", quote=_SPAN),)),
    ClaimDraft(
        "Revenue rose by $0.5 million in 2023.",
        type=ClaimType.COMPUTATIONAL,
        bindings=(Binding("warm"),),
    ),
)


def warm_up() -> tuple[Status, ...]:
    """Judge a verbatim and a computed claim over one built-in span; their statuses (both
    ``verified`` when the gate's tables loaded as they should)."""
    facts = {"warm": SpanFacts("warm", True, True, True, False, _SPAN)}
    return tuple(judge(claim, facts).status for claim in _CLAIMS)
