"""The pluggable entailment tier: a model asked whether a span supports a claim.

It never decides a claim's status and never runs in the request path: a sampler follows
committed claims in the background (``processes.entailment_sampler``), records each verdict
as a signed event, and ``no`` and ``partial`` verdicts land in a review queue for people. This
module is the port; the HTTP adapter is ``processes.entailment_http``.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from ledger.errors import EntailmentError


class EntailmentVerdict(StrEnum):
    """Does the evidence support the claim?"""

    YES = "yes"
    NO = "no"
    PARTIAL = "partial"


@dataclass(frozen=True)
class EntailmentResult:
    """One verifier's answer for one claim."""

    verdict: EntailmentVerdict
    verifier: str
    model: str
    raw: str


class EntailmentVerifier(Protocol):
    """Asks whether ``evidence`` supports ``claim``, using no outside knowledge."""

    name: str

    def check(self, claim: str, evidence: str) -> EntailmentResult:
        """Return the verdict, or raise :class:`EntailmentError`."""


def sampled(claim_id: str, rate: float) -> bool:
    """Deterministic sampling: the same claim is always in or out at a given rate."""
    if rate <= 0:
        return False
    if rate >= 1:
        return True
    bucket = int.from_bytes(hashlib.sha256(claim_id.encode()).digest()[:8], "big")
    return bucket / 2**64 < rate


_WORD = re.compile(r"[a-z]+")


def parse_verdict(text: str) -> EntailmentVerdict:
    """The first yes/no/partial word of a reply; anything else is an error."""
    for word in _WORD.findall(text.lower()):
        if word in ("yes", "no", "partial"):
            return EntailmentVerdict(word)
    raise EntailmentError(f"reply has no yes/no/partial verdict: {text[:80]!r}")
