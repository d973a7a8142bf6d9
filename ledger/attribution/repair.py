"""Re-attribution: find a span of the sealed pool that the commit gate verifies a claim against.

Most citation failures are misattributions: the claim is right and the pointer is wrong.
:func:`find_repair` keeps the claim's text and every other binding, and tries replacing one
binding with the best-ranked spans of the receipt's evidence pool:

1. candidates are the pool's spans that exist, are in the pool, in force and not withdrawn,
   less every span the claim already binds;
2. they are ranked against the claim text by a :class:`~ledger.attribution.ranker.Bm25Ranker`;
3. for each of the top ``max_attempts`` in rank order, the claim with the binding replaced is
   judged by :func:`ledger.gate.judge` with the pool's facts; the first ``verified`` one wins.

The replacement binding keeps the old binding's role; its quote is kept only when it still
matches the new span's text (as the gate's quote check compares them), else it is dropped.
A span outside ``pool`` can never be proposed: ranking sees nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from ledger.attribution.ranker import Bm25Ranker, Candidate, Ranked
from ledger.errors import InvalidInput
from ledger.gate import (
    Binding,
    ClaimDraft,
    GateConfig,
    SpanFacts,
    Status,
    judge,
    normalise_quote,
)

MAX_ATTEMPTS = 3
"""How many ranked candidates are judged before giving up: each attempt is a full gate run."""


@dataclass(frozen=True, slots=True)
class RepairAttempt:
    """One candidate tried: its rank and score, and the gate's status for the rebound claim."""

    span_id: str
    rank: int
    score: float
    status: str


@dataclass(frozen=True, slots=True)
class RepairOutcome:
    """What :func:`find_repair` found.

    ``new_binding`` is the replacement binding when ``repaired``; ``attempts`` lists every
    candidate judged, in rank order; ``ranker`` and ``ranker_version`` name the ranking used;
    ``rank`` and ``score`` are the winning candidate's (``None`` when nothing was repaired).
    """

    repaired: bool
    new_binding: Binding | None
    attempts: tuple[RepairAttempt, ...]
    ranker: str
    ranker_version: str
    rank: int | None
    score: float | None


def find_repair(
    claim: ClaimDraft,
    binding_index: int,
    pool: Mapping[str, SpanFacts],
    ranker: Bm25Ranker,
    config: GateConfig,
    max_attempts: int = MAX_ATTEMPTS,
) -> RepairOutcome:
    """Find a pool span that verifies ``claim`` when it replaces binding ``binding_index``.

    ``pool`` maps span ids to the facts of the receipt's sealed pool; the gate reads the claim's
    other bindings from it too. Raises :class:`~ledger.errors.InvalidInput` for a binding index
    outside the claim's bindings, a ``max_attempts`` below 1 or a pool entry filed under
    another span's id.
    """
    if not 0 <= binding_index < len(claim.bindings):
        raise InvalidInput(
            "binding_index",
            "in_range",
            f"binding_index must be in 0..{len(claim.bindings) - 1}; got {binding_index}",
        )
    if max_attempts < 1:
        raise InvalidInput(
            "max_attempts", "positive", f"max_attempts must be at least 1; got {max_attempts}"
        )
    old = claim.bindings[binding_index]
    bound = {binding.span_id for binding in claim.bindings}
    ranked = ranker.rank(claim.text, _candidates(pool), exclude=bound)
    attempts: list[RepairAttempt] = []
    for choice in ranked[:max_attempts]:
        binding = _rebind(old, pool[choice.span_id])
        bindings = list(claim.bindings)
        bindings[binding_index] = binding
        verdict = judge(replace(claim, bindings=tuple(bindings)), pool, config)
        attempts.append(
            RepairAttempt(choice.span_id, choice.rank, choice.score, verdict.status.value)
        )
        if verdict.status is Status.VERIFIED:
            return _outcome(ranker, attempts, binding, choice)
    return _outcome(ranker, attempts, None, None)


def _candidates(pool: Mapping[str, SpanFacts]) -> list[Candidate]:
    """The pool's spans a claim may be rebound to, in the pool's order."""
    out: list[Candidate] = []
    for span_id, facts in pool.items():
        if facts.span_id != span_id:
            raise InvalidInput(
                "pool",
                "keyed_by_span_id",
                f"pool entry {span_id!r} holds the facts of span {facts.span_id!r}",
            )
        if facts.exists and facts.in_pool and facts.in_force and not facts.withdrawn:
            out.append(Candidate(span_id, facts.text, facts.envelope))
    return out


def _rebind(old: Binding, facts: SpanFacts) -> Binding:
    """``old``'s role on the new span; its quote only if the new span's text contains it."""
    quote = old.quote
    if quote is not None:
        wanted = normalise_quote(quote)
        if not wanted or wanted not in normalise_quote(facts.text):
            quote = None
    return Binding(facts.span_id, old.role, quote)


def _outcome(
    ranker: Bm25Ranker,
    attempts: list[RepairAttempt],
    binding: Binding | None,
    winner: Ranked | None,
) -> RepairOutcome:
    """The outcome of a search that tried ``attempts`` and chose ``winner`` (or nothing)."""
    return RepairOutcome(
        repaired=binding is not None,
        new_binding=binding,
        attempts=tuple(attempts),
        ranker=ranker.name,
        ranker_version=ranker.version,
        rank=winner.rank if winner is not None else None,
        score=winner.score if winner is not None else None,
    )
