"""The per-binding checks that need only the caller's :class:`~ledger.gate.model.SpanFacts`:
existence (the span resolves and is in the receipt's sealed evidence pool) and version (its
source version was in force at ``as_of`` and the source is not withdrawn).
"""

from __future__ import annotations

from functools import lru_cache

from ledger.gate.anchors.reading import SPAN_CACHE_SIZE
from ledger.gate.model import CheckResult, Outcome, SpanFacts


def check_existence(span_id: str, facts: SpanFacts | None) -> CheckResult:
    """Pass ``span_exists``; fail ``span_unknown`` or ``span_not_in_pool``."""
    if facts is None or not facts.exists:
        return CheckResult(
            "existence",
            Outcome.FAIL,
            "span_unknown",
            f"span {span_id!r} does not resolve in the registry",
            span_id,
        )
    if not facts.in_pool:
        return CheckResult(
            "existence",
            Outcome.FAIL,
            "span_not_in_pool",
            f"span {span_id!r} exists but is not in the receipt's sealed evidence pool",
            span_id,
        )
    return _span_exists(span_id)


def check_version(span_id: str, facts: SpanFacts | None) -> CheckResult:
    """Pass ``version_in_force``; fail ``source_withdrawn`` or ``version_not_in_force``; skip
    ``span_unknown`` when there is no span to look at.
    """
    if facts is None or not facts.exists:
        return CheckResult(
            "version", Outcome.SKIP, "span_unknown", "no span, so no version", span_id
        )
    shown = f" ({facts.version_detail})" if facts.version_detail else ""
    if facts.withdrawn:
        return CheckResult(
            "version",
            Outcome.FAIL,
            "source_withdrawn",
            f"the span's source is withdrawn{shown}",
            span_id,
        )
    if not facts.in_force:
        return CheckResult(
            "version",
            Outcome.FAIL,
            "version_not_in_force",
            f"the span's source version was not in force at the receipt's as_of{shown}",
            span_id,
        )
    return _version_in_force(span_id, shown)


# The passing results depend only on the span, and the spans of a receipt are cited by claim
# after claim: each is built once.


@lru_cache(maxsize=SPAN_CACHE_SIZE)
def _span_exists(span_id: str) -> CheckResult:
    return CheckResult(
        "existence", Outcome.PASS, "span_exists", "the span resolves and is in the pool", span_id
    )


@lru_cache(maxsize=SPAN_CACHE_SIZE)
def _version_in_force(span_id: str, shown: str) -> CheckResult:
    return CheckResult(
        "version",
        Outcome.PASS,
        "version_in_force",
        f"the span's source version was in force{shown}",
        span_id,
    )
